import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { NewPet, Pet } from '../pet.js';

/**
 * The idempotency rule of `createPet`, as Stripe's API has it: with an `Idempotency-Key`, a retry
 * of the same request within a day returns the animal the first one created and creates nothing;
 * the same key with a different request is refused. Keys belong to the API key that sent them.
 * Each engine writes the key's record in the transaction that inserts the animal (see
 * `PetRecords.insertOnce`), so both exist or neither does.
 */

const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

export const IdempotencyKey = z
  .string()
  .regex(
    new RegExp(`^[\\x21-\\x7E]{1,${IDEMPOTENCY_KEY_MAX_LENGTH}}$`),
    `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters.`,
  )
  // The pattern bounds it already; the document says so in the words clients' tools read.
  .meta({ maxLength: IDEMPOTENCY_KEY_MAX_LENGTH });

/** How long an `Idempotency-Key` keeps its first response. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Records made before this instant, at `now`, no longer count and may be deleted. */
export const idempotencyRecordsExpireBefore = (now: Date) => new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS);

/** SHA-256 of the validated input, whose key order is the schema's: equal requests hash equally. */
export const fingerprintOf = (pet: NewPet): string => createHash('sha256').update(JSON.stringify(pet)).digest('hex');

/** What an engine found under a key: the record and the animal it created. */
export interface FoundIdempotencyRecord {
  /** `fingerprintOf` the first request, so a different body under the same key is noticed. */
  fingerprint: string;
  createdAt: Date;
  pet: Pet;
}

export type IdempotentCreateDecision =
  | { outcome: 'replayed'; pet: Pet }
  | { outcome: 'mismatch' }
  /** Insert the animal and (over)write the key's record, in the same transaction. */
  | { outcome: 'create' };

/**
 * The decision both engines take inside that transaction, once they hold the lock that orders
 * requests with the same key: a live record with the same fingerprint is replayed, one with
 * another fingerprint refused; no record, or an expired one (even if not yet pruned), means create.
 */
export const decideIdempotentCreate = (
  found: FoundIdempotencyRecord | undefined,
  { fingerprint, now }: { fingerprint: string; now: Date },
): IdempotentCreateDecision => {
  if (!found || found.createdAt < idempotencyRecordsExpireBefore(now)) return { outcome: 'create' };
  if (found.fingerprint !== fingerprint) return { outcome: 'mismatch' };
  return { outcome: 'replayed', pet: found.pet };
};
