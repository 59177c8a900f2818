import { createHash } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import type { PetRecords } from '../db/database.js';
import type { NewPet, Pet } from '../schemas/pet.js';

const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

export const IdempotencyKey = z
  .string()
  .regex(
    new RegExp(`^[\\x21-\\x7E]{1,${IDEMPOTENCY_KEY_MAX_LENGTH}}$`),
    `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters.`,
  )
  // The pattern bounds it already; the document says so in the words clients' tools read.
  .meta({ maxLength: IDEMPOTENCY_KEY_MAX_LENGTH });

export interface AddPetRequest {
  pet: NewPet;
  apiKeyId: number;
  /** As the client sent it, if it sent one. */
  idempotencyKey?: string | undefined;
  now: Date;
}

/**
 * Adds an animal. With an idempotency key (as Stripe's API does), a retry of the same request
 * within a day returns the animal the first one created and creates nothing; the same key with a
 * different request is refused. Keys belong to the API key that sent them. The record is written
 * in the transaction that inserts the animal, so both exist or neither does, on every engine.
 */
export const addPet = async (
  records: PetRecords,
  { pet, apiKeyId, idempotencyKey, now }: AddPetRequest,
): Promise<{ pet: Pet; replayed: boolean }> => {
  if (idempotencyKey === undefined) return { pet: await records.insert(pet), replayed: false };
  const key = IdempotencyKey.safeParse(idempotencyKey);
  if (!key.success) throw new TRPCError({ code: 'BAD_REQUEST', message: key.error.issues[0]?.message ?? 'Invalid Idempotency-Key.' });

  // The validated input, whose key order is the schema's: equal requests hash equally.
  const fingerprint = createHash('sha256').update(JSON.stringify(pet)).digest('hex');
  const result = await records.insertOnce(pet, { apiKeyId, key: key.data, fingerprint, now });
  if (result.outcome === 'mismatch') {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: 'This Idempotency-Key was already used with a different request body; use a new key for a new animal.',
    });
  }
  return { pet: result.pet, replayed: result.outcome === 'replayed' };
};
