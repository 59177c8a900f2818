import { ErrorBody, Pet, PetPage, Pets, type ProcedureMeta, ValidationIssue, appRouter } from '@petstore/core';
import type { OpenAPIObject } from 'openapi3-ts/oas31';
import { generateOpenApiDocument } from 'trpc-to-openapi';
import { restOperations } from '../rest/routes.js';
import { type DocumentServers, completeDocument } from './complete-document.js';

export type { DocumentServers } from './complete-document.js';

const TAGS = { animals: 'The animals in the store.' };

/**
 * The OpenAPI document of the REST interface, generated from the procedures and their zod
 * schemas, then completed where the generator falls short.
 */
export const createOpenApiDocument = (servers: DocumentServers): OpenAPIObject =>
  completeDocument(
    generateOpenApiDocument<ProcedureMeta>(appRouter, {
      title: 'Petstore',
      description:
        'A pet store: list, add and fetch animals. Every operation needs an API key sent as ' +
        '`Authorization: Bearer <API_KEY>`; every error has the `Error` body.',
      version: '1.0.0',
      // The LICENSE file at the repository's root.
      license: { name: 'MIT', identifier: 'MIT' },
      baseUrl: servers.publicBaseUrl,
      tags: Object.keys(TAGS),
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'The API key, as a bearer token.' },
      },
      // Results are described by reference (see `resultOf`); these are the components they name.
      defs: { Pet, Pets, PetPage, Error: ErrorBody, ValidationIssue },
    }),
    { operations: restOperations(), servers, tags: TAGS },
  );
