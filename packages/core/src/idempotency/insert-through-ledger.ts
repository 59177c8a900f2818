import { setTimeout as sleep } from 'node:timers/promises';
import { TRPCError } from '@trpc/server';
import type { IdempotentCreate, IdempotentOutcome, PetRecords } from '../db/database.js';
import type { NewPet } from '../schemas/pet.js';
import type { IdempotencyLedger } from './ledger.js';

/** How long a claim lasts before its request finishes; past it, a crashed creator's key is free. */
const PENDING_FOR_MS = 30_000;
/** How long a retry waits for a concurrent request with the same key to finish. */
const WAIT_FOR_MS = 2_000;
const POLL_EVERY_MS = 25;

const settledEntry = async (ledger: IdempotencyLedger, id: string) => {
  for (let waited = 0; waited < WAIT_FOR_MS; waited += POLL_EVERY_MS) {
    await sleep(POLL_EVERY_MS);
    const entry = await ledger.read(id);
    if (entry?.petId !== undefined) return entry;
  }
  return undefined;
};

/**
 * The ledger's version of `PetRecords.insertOnce`: claim the key, insert, record the animal. A
 * request that finds the key claimed but not yet settled waits briefly for the outcome. One window
 * is not closed: a process killed between its insert and its settle leaves the key free again
 * after PENDING_FOR_MS, and a retry then creates a second animal.
 */
export const insertThroughLedger = async (
  records: PetRecords,
  ledger: IdempotencyLedger,
  pet: NewPet,
  { apiKeyId, key, fingerprint, now, notBefore }: IdempotentCreate,
): Promise<IdempotentOutcome> => {
  const id = `${apiKeyId}:${key}`;
  const holder = await ledger.claim(id, fingerprint, PENDING_FOR_MS);
  if (!holder) {
    try {
      const created = await records.insert(pet);
      await ledger.settle(id, { fingerprint, petId: created.id }, now.getTime() - notBefore.getTime());
      return { outcome: 'created', pet: created };
    } catch (error) {
      await ledger.release(id);
      throw error;
    }
  }
  if (holder.fingerprint !== fingerprint) return { outcome: 'mismatch' };
  const settled = holder.petId === undefined ? await settledEntry(ledger, id) : holder;
  const created = settled?.petId === undefined ? undefined : await records.findById(settled.petId);
  if (!created) {
    throw new TRPCError({
      code: 'CONFLICT',
      message: 'A request with this Idempotency-Key is still being processed; retry in a moment.',
    });
  }
  return { outcome: 'replayed', pet: created };
};
