import type { Pet } from '../schemas/pet.js';

/** How long an `Idempotency-Key` keeps its first response. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Records made before this instant, at `now`, no longer count and may be deleted. */
export const idempotencyRecordsExpireBefore = (now: Date) => new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS);

/** What an engine found under a key: the record and the animal it created. */
export interface FoundIdempotencyRecord {
  /** SHA-256 of the validated request, so a different body under the same key is noticed. */
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
 * The one rule both engines apply inside the transaction that would insert the animal, once they
 * hold the lock that orders requests with the same key: a live record with the same fingerprint is
 * replayed, one with another fingerprint refused; no record, or an expired one (even if not yet
 * pruned), means create.
 */
export const decideIdempotentCreate = (
  found: FoundIdempotencyRecord | undefined,
  { fingerprint, now }: { fingerprint: string; now: Date },
): IdempotentCreateDecision => {
  if (!found || found.createdAt < idempotencyRecordsExpireBefore(now)) return { outcome: 'create' };
  if (found.fingerprint !== fingerprint) return { outcome: 'mismatch' };
  return { outcome: 'replayed', pet: found.pet };
};
