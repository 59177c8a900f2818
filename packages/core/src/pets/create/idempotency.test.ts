import { describe, expect, it } from 'vitest';
import type { Pet } from '../pet.js';
import { IDEMPOTENCY_WINDOW_MS, decideIdempotentCreate, idempotencyRecordsExpireBefore } from './idempotency.js';

const rex: Pet = { id: 7, name: 'Rex', categoryId: 1, status: 'available' };
const now = new Date('2030-01-02T00:00:00Z');
const madeAgo = (ms: number) => ({ fingerprint: 'a', createdAt: new Date(now.getTime() - ms), pet: rex });

describe('decideIdempotentCreate', () => {
  it('creates when the key has no record', () => {
    expect(decideIdempotentCreate(undefined, { fingerprint: 'a', now })).toEqual({ outcome: 'create' });
  });

  it('replays the animal of a live record with the same fingerprint', () => {
    expect(decideIdempotentCreate(madeAgo(1_000), { fingerprint: 'a', now })).toEqual({ outcome: 'replayed', pet: rex });
  });

  it('refuses a live record with another fingerprint', () => {
    expect(decideIdempotentCreate(madeAgo(1_000), { fingerprint: 'b', now })).toEqual({ outcome: 'mismatch' });
  });

  it('still counts a record exactly 24 hours old', () => {
    expect(decideIdempotentCreate(madeAgo(IDEMPOTENCY_WINDOW_MS), { fingerprint: 'b', now })).toEqual({ outcome: 'mismatch' });
  });

  it.each(['a', 'b'])('ignores a record 24 hours and one second old (fingerprint %s)', (fingerprint) => {
    expect(decideIdempotentCreate(madeAgo(IDEMPOTENCY_WINDOW_MS + 1_000), { fingerprint, now })).toEqual({ outcome: 'create' });
  });

  it('expires records made before the window that ends now', () => {
    expect(idempotencyRecordsExpireBefore(now)).toEqual(new Date('2030-01-01T00:00:00Z'));
  });
});
