import type { OperationObject, ParameterObject, ReferenceObject, ResponseObject, SchemaObject } from 'openapi3-ts/oas31';
import { describe, expect, it } from 'vitest';
import { resolveReference } from './resolve-reference.js';
import { createOpenApiDocument } from './document.js';
import { operations as coreOperations } from '@petstore/core';

const document = createOpenApiDocument({ publicBaseUrl: 'https://petstore.example/v1' });
/** Each operation of core's list as the document describes it, by name, found by its meta's path and method. */
const operations: Record<string, OperationObject> = Object.fromEntries(
  Object.entries(coreOperations).flatMap(([name, { meta }]) =>
    meta.openapi ? [[name, document.paths?.[meta.openapi.path]?.[meta.openapi.method.toLowerCase() as Lowercase<typeof meta.openapi.method>] as OperationObject]] : [],
  ),
);
const described = (name: string): OperationObject => {
  const operation = operations[name];
  if (!operation) throw new Error(`the document has no ${name}`);
  return operation;
};
const [listPets, createPet, getPet] = [described('listPets'), described('createPet'), described('getPet')];
const schema = (name: string) => document.components?.schemas?.[name] as SchemaObject;
const responses = (op: OperationObject): Record<string, ResponseObject | undefined> =>
  Object.fromEntries((Object.entries(op.responses ?? {}) as [string, ResponseObject | ReferenceObject][]).map(([status, item]) => [status, resolveReference<ResponseObject>(document, item)]));

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 for interface version 1.0.0', () => {
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(document.info.version).toBe('1.0.0');
  });

  it('lists production, and staging only when it is set', () => {
    expect(document.servers).toEqual([{ url: 'https://petstore.example/v1', description: 'Production', 'x-internal': false }]);
    const both = createOpenApiDocument({ publicBaseUrl: 'https://p.example/v1', stagingBaseUrl: 'https://s.example/v1' });
    expect(both.servers?.map((server) => server.url)).toEqual(['https://p.example/v1', 'https://s.example/v1']);
  });

  it('has every operation, under its own name, tagged animals, each requiring bearerAuth', () => {
    expect(Object.entries(operations).map(([name, op]) => [name, op.operationId])).toEqual(Object.keys(coreOperations).map((name) => [name, name]));
    for (const op of Object.values(operations)) {
      expect(op.tags).toEqual(['animals']);
      expect(op.security).toEqual([{ bearerAuth: [] }]);
    }
    expect(document.components?.securitySchemes?.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.tags).toEqual([{ name: 'animals', description: expect.any(String) }]);
  });

  it('bounds limit to 1..100 with default 20 and enumerates status', () => {
    const [limit, status, cursor] = listPets.parameters as ParameterObject[];
    expect(limit).toMatchObject({ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } });
    expect(status).toMatchObject({ name: 'status', in: 'query', schema: { $ref: '#/components/schemas/PetStatus' } });
    expect(cursor).toMatchObject({ name: 'cursor', in: 'query', schema: { type: 'string' } });
    expect(schema('PetStatus')).toMatchObject({ type: 'string', enum: ['available', 'pending', 'sold'] });
  });

  it('names NewPet, Pet, PetStatus and Error with the interface required fields and int64 ids', () => {
    expect(schema('NewPet')).toMatchObject({ required: ['name', 'categoryId'], additionalProperties: false });
    expect(schema('NewPet').properties?.categoryId).toMatchObject({ type: 'integer', format: 'int64', minimum: 1, maximum: 2 ** 53 - 1 });
    expect(schema('Pet')).toMatchObject({ required: ['id', 'name', 'categoryId', 'status'] });
    expect(schema('Pet').properties?.id).toMatchObject({ type: 'integer', format: 'int64' });
    expect(schema('Error')).toMatchObject({ required: ['code', 'message', 'status'] });
    expect((createPet.requestBody as { content: Record<string, unknown> }).content['application/json']).toEqual({
      schema: { $ref: '#/components/schemas/NewPet' },
    });
    expect(Object.keys(document.components?.schemas ?? {}).filter((name) => name.startsWith('error.'))).toEqual([]);
  });

  it('requires the petId path parameter, an int64', () => {
    expect(getPet.parameters).toEqual([
      expect.objectContaining({ name: 'petId', in: 'path', required: true, schema: expect.objectContaining({ type: 'integer', format: 'int64' }) }),
      expect.objectContaining({ name: 'If-None-Match', in: 'header' }),
    ]);
  });

  it.each([
    ['listPets', ['200', '304', '400', '401', '403', '429', '500', '503']],
    ['createPet', ['201', '400', '401', '403', '413', '415', '429', '500', '503']],
    ['getPet', ['200', '304', '400', '401', '403', '404', '429', '500', '503']],
  ] as const)('documents every status %s answers, errors with the Error body', (name, statuses) => {
    const documented = responses(described(name));
    expect(Object.keys(documented).sort()).toEqual([...statuses].sort());
    for (const [status, response] of Object.entries(documented)) {
      if (Number(status) < 400) continue;
      expect(response?.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/Error' });
    }
    expect(responses(described(name))['401']?.headers).toHaveProperty('WWW-Authenticate');
    expect(responses(described(name))['429']?.headers).toHaveProperty('Retry-After.required', true);
    for (const response of Object.values(documented)) {
      expect(response?.headers).toHaveProperty('X-Request-Id', { $ref: '#/components/headers/X-Request-Id' });
    }
  });

  it.each([
    ['listPets', 'pets:read'],
    ['createPet', 'pets:write'],
    ['getPet', 'pets:read'],
  ] as const)('shows the scope %s needs, in its description and its 403 challenge', (name, scope) => {
    expect(described(name).description).toContain(`Needs an API key with the \`${scope}\` scope`);
    expect(responses(described(name))['403']?.headers?.['WWW-Authenticate']).toMatchObject({
      required: true,
      schema: { const: `Bearer realm="petstore", error="insufficient_scope", scope="${scope}"` },
    });
  });

  it('documents the Idempotency-Key header of createPet', () => {
    expect(createPet.parameters).toContainEqual(
      expect.objectContaining({ name: 'Idempotency-Key', in: 'header', schema: expect.objectContaining({ type: 'string' }) }),
    );
    expect(responses(createPet)['201']?.headers).toHaveProperty('Idempotent-Replayed');
  });

  it('documents the response headers', () => {
    expect(responses(createPet)['201']?.headers).toHaveProperty('Location.required', true);
    const listHeaders = responses(listPets)['200']?.headers ?? {};
    expect(Object.keys(listHeaders)).toEqual(['Link', 'ETag', 'X-Request-Id', 'RateLimit-Policy', 'RateLimit']);
    expect(listHeaders).not.toHaveProperty('Link.required', true);
    const getHeaders = responses(getPet)['200']?.headers ?? {};
    expect(Object.keys(getHeaders)).toEqual(['Deprecation', 'Sunset', 'Link', 'ETag', 'X-Request-Id', 'RateLimit-Policy', 'RateLimit']);
  });

  it('documents conditional GETs: If-None-Match, the ETag and the 304', () => {
    for (const operation of [listPets, getPet]) {
      expect(operation.parameters).toContainEqual(expect.objectContaining({ name: 'If-None-Match', in: 'header' }));
      expect(responses(operation)['200']?.headers).toHaveProperty('ETag.required', true);
      const notModified = responses(operation)['304'];
      expect(notModified?.headers).toHaveProperty('ETag.required', true);
      expect(notModified?.content).toBeUndefined();
    }
    expect(createPet.parameters ?? []).not.toContainEqual(expect.objectContaining({ name: 'If-None-Match' }));
  });

  it('marks getPet deprecated with its removal date', () => {
    expect(getPet.deprecated).toBe(true);
    expect(getPet.description).toContain('5 December 2030');
    expect(listPets.deprecated).toBeUndefined();
  });
});

