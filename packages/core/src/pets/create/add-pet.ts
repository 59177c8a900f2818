import { TRPCError } from '@trpc/server';
import type { PetRecords } from '../../storage/database.js';
import type { NewPet, Pet } from '../pet.js';
import { IdempotencyKey, fingerprintOf } from './idempotency.js';

export interface AddPetRequest {
  pet: NewPet;
  /** What the key that sent it stands for across rotations: its idempotency records belong to it. */
  keyLineage: string;
  /** As the client sent it, if it sent one. */
  idempotencyKey?: string | undefined;
  now: Date;
  /** Aborted when the client has gone: an animal not yet being written is not added. */
  signal?: AbortSignal | undefined;
}

/** Adds an animal, once per idempotency key when one is sent (the rule: idempotency.ts). */
export const addPet = async (
  records: PetRecords,
  { pet, keyLineage, idempotencyKey, now, signal }: AddPetRequest,
): Promise<{ pet: Pet; replayed: boolean }> => {
  if (idempotencyKey === undefined) return { pet: await records.insert(pet, signal), replayed: false };
  const key = IdempotencyKey.safeParse(idempotencyKey);
  if (!key.success) throw new TRPCError({ code: 'BAD_REQUEST', message: key.error.issues[0]?.message ?? 'Invalid Idempotency-Key.' });

  const result = await records.insertOnce(pet, { keyLineage, key: key.data, fingerprint: fingerprintOf(pet), now }, signal);
  if (result.outcome === 'mismatch') {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: 'This Idempotency-Key was already used with a different request body; use a new key for a new animal.',
    });
  }
  return { pet: result.pet, replayed: result.outcome === 'replayed' };
};
