import { z } from 'zod';
import { createPetHandler } from './create/create-pet.js';
import { IdempotencyKey } from './create/idempotency.js';
import { getPetHandler } from './get-pet.js';
import { listPetsHandler } from './list/list-pets.js';
import { PetPage } from './list/page.js';
import { Pet } from './pet.js';
import {
  DeprecationHeader,
  IdempotentReplayedHeader,
  LocationHeader,
  NextPageLinkHeader,
  SuccessorLinkHeader,
  SunsetHeader,
} from './response-header-schemas.js';
import { authedProcedure, resultOf } from '../trpc.js';

/**
 * The pet procedures and their domain meta: the scope each needs, how REST shows it (path, status,
 * headers) and the errors it answers itself. What each one does is its handler, in its feature's
 * room; what the transport answers on its own (401, 413, 415, 429, …) the service describes.
 */
const tags = ['animals'];

export const listPets = authedProcedure
  .meta({
    scope: 'pets:read',
    paginated: true,
    openapi: {
      method: 'GET',
      path: '/pets',
      tags,
      summary: 'List animals',
      description:
        'Animals by ascending id, a page at a time. When more follow, the `Link` header holds the ' +
        'next page (`rel="next"`); the last page has none.',
      successDescription: 'The list (paginated).',
      responseHeaders: z.object({ Link: NextPageLinkHeader.optional() }),
      errorResponses: { 400: 'A query parameter is invalid.' },
    },
  })
  .input(listPetsHandler.input)
  .output(resultOf(PetPage))
  .query(listPetsHandler.resolve);

export const createPet = authedProcedure
  .meta({
    scope: 'pets:write',
    successStatus: 201,
    openapi: {
      method: 'POST',
      path: '/pets',
      tags,
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
      responseHeaders: z.object({
        Location: LocationHeader,
        'Idempotent-Replayed': IdempotentReplayedHeader.optional(),
      }),
      errorResponses: {
        400: 'Body is missing required fields or holds invalid values, or the Idempotency-Key was used with another body.',
      },
    },
  })
  .input(createPetHandler.input)
  .output(resultOf(Pet))
  .mutation(createPetHandler.resolve);

export const getPet = authedProcedure
  .meta({
    scope: 'pets:read',
    deprecation: {
      since: new Date('2026-11-22T00:00:00Z'),
      sunset: new Date('2030-12-05T00:00:00Z'),
      successor: 'listPets',
    },
    openapi: {
      method: 'GET',
      path: '/pets/{petId}',
      tags,
      summary: 'Get an animal (deprecated)',
      description:
        'Deprecated: to be removed on 5 December 2030. Use `GET /pets` with the `status` filter instead.',
      deprecated: true,
      successDescription: 'The requested animal.',
      responseHeaders: z.object({
        Deprecation: DeprecationHeader,
        Sunset: SunsetHeader,
        Link: SuccessorLinkHeader,
      }),
      errorResponses: {
        400: '`petId` is not a positive integer.',
        404: 'The animal could not be found.',
      },
    },
  })
  .input(getPetHandler.input)
  .output(resultOf(Pet))
  .query(getPetHandler.resolve);
