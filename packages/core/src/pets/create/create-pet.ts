import { z } from 'zod';
import { markReplayed } from '../../operation/call-operation.js';
import { defineMutation } from '../../operation/define-operation.js';
import { NewPet, Pet } from '../pet.js';
import { addPet } from './add-pet.js';
import { IdempotencyKey } from './idempotency.js';

/** `createPet`: adds the animal, once per `Idempotency-Key`; a replayed result says so (`isReplayed`). */
export const createPet = defineMutation({
  meta: {
    scope: 'pets:write',
    successStatus: 201,
    openapi: {
      method: 'POST',
      path: '/pets',
      tags: ['animals'],
      summary: 'Add an animal',
      description:
        'Adds an animal and assigns its `id`. `name` is stored trimmed; `status` defaults to `available`. ' +
        'With an `Idempotency-Key`, a retry of the same request within 24 hours returns the first ' +
        'response (with `Idempotent-Replayed: true`) and adds nothing.',
      successDescription: 'Animal added.',
      requestHeaders: z.object({
        'Idempotency-Key': IdempotencyKey.optional().meta({
          description:
            'Makes the request safe to retry: the same key with the same body, from the same API key, ' +
            'within 24 hours, adds the animal once. The same key with another body is refused (400).',
          examples: ['3f1c9a0e-7b2d-4c55-9e61-2a8d0f4b7c13'],
        }),
      }),
      // `Location` is the REST transport's to describe: its value is an address under the
      // interface's base path, which core does not know.
      responseHeaders: z.object({
        'Idempotent-Replayed': z.literal('true').optional().meta({
          description: 'Present when this is the response to an earlier request with the same Idempotency-Key.',
        }),
      }),
      errorResponses: {
        400: 'Body is missing required fields or holds invalid values, or the Idempotency-Key was used with another body.',
      },
    },
  },
  input: NewPet,
  output: Pet,
  resolve: async ({ ctx, input }) => {
    const { pet, replayed } = await addPet(ctx.db.pets, {
      pet: input,
      keyLineage: ctx.principal.lineage,
      idempotencyKey: ctx.idempotencyKey,
      now: new Date(),
      signal: ctx.signal,
    });
    return replayed ? markReplayed(pet) : pet;
  },
});
