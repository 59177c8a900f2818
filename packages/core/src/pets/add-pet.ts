import { createHash } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import type { PetRecords } from '../db/database.js';
import { insertThroughLedger } from '../idempotency/insert-through-ledger.js';
import type { IdempotencyLedger } from '../idempotency/ledger.js';
import type { NewPet, Pet } from '../schemas/pet.js';

/** How long an `Idempotency-Key` keeps its first response. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export const IdempotencyKey = z
  .string()
  .regex(/^[\x21-\x7E]{1,255}$/, 'Idempotency-Key must be 1 to 255 visible ASCII characters.');

export interface AddPetRequest {
  pet: NewPet;
  apiKeyId: number;
  /** As the client sent it, if it sent one. */
  idempotencyKey?: string | undefined;
  now: Date;
  /** Where idempotency records are shared between instances; absent: in the database. */
  ledger?: IdempotencyLedger | undefined;
}

/**
 * Adds an animal. With an idempotency key (as Stripe's API does), a retry of the same request
 * within a day returns the animal the first one created and creates nothing; the same key with a
 * different request is refused. Keys belong to the API key that sent them.
 */
export const addPet = async (
  records: PetRecords,
  { pet, apiKeyId, idempotencyKey, now, ledger }: AddPetRequest,
): Promise<{ pet: Pet; replayed: boolean }> => {
  if (idempotencyKey === undefined) return { pet: await records.insert(pet), replayed: false };
  const key = IdempotencyKey.safeParse(idempotencyKey);
  if (!key.success) throw new TRPCError({ code: 'BAD_REQUEST', message: key.error.issues[0]?.message ?? 'Invalid Idempotency-Key.' });

  // The validated input, whose key order is the schema's: equal requests hash equally.
  const fingerprint = createHash('sha256').update(JSON.stringify(pet)).digest('hex');
  const notBefore = new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS);
  const once = { apiKeyId, key: key.data, fingerprint, now, notBefore };
  const result = ledger ? await insertThroughLedger(records, ledger, pet, once) : await records.insertOnce(pet, once);
  if (result.outcome === 'mismatch') {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: 'This Idempotency-Key was already used with a different request body; use a new key for a new animal.',
    });
  }
  return { pet: result.pet, replayed: result.outcome === 'replayed' };
};
