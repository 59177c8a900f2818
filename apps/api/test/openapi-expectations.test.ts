import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type {
  HeaderObject,
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  RequestBodyObject,
  ResponseObject,
  SchemaObject,
} from 'openapi3-ts/oas31';
import { describe, expect, it } from 'vitest';
import { resolveReference } from '../src/openapi/resolve-reference.js';

/*
 * The committed openapi.json (which openapi-document.test.ts keeps equal to the served one) read
 * against the pet store interface, with every expected value typed here by hand from it: nothing
 * is read from the procedures' meta or the zod schemas the document is generated from, so a slip
 * there cannot hide itself. Where the service says more than the interface (scopes, quotas,
 * conditional GETs), the extra is named as such.
 */
const document = JSON.parse(readFileSync(fileURLToPath(new URL('../../../openapi.json', import.meta.url)), 'utf8')) as OpenAPIObject;

const resolve = <T extends object>(item: T | ReferenceObject | undefined): T => resolveReference<T>(document, item) as T;

const OPERATIONS = {
  listPets: { method: 'get', path: '/pets' },
  createPet: { method: 'post', path: '/pets' },
  getPet: { method: 'get', path: '/pets/{petId}' },
} as const;
type OperationName = keyof typeof OPERATIONS;

const operation = (name: OperationName): OperationObject => {
  const { method, path } = OPERATIONS[name];
  const found = document.paths?.[path]?.[method];
  if (!found) throw new Error(`no ${method.toUpperCase()} ${path} in openapi.json`);
  return found;
};
const responses = (name: OperationName) => operation(name).responses as Record<string, ResponseObject | ReferenceObject>;
const response = (name: OperationName, status: string) => resolve<ResponseObject>(responses(name)[status]);
const parameter = (name: OperationName, parameterName: string) =>
  (operation(name).parameters ?? []).map((item) => resolve<ParameterObject>(item)).find((item) => item.name === parameterName);
const schema = (name: string) => resolve<SchemaObject>({ $ref: `#/components/schemas/${name}` });
const bodySchema = (name: OperationName, status: string) => response(name, status).content?.['application/json']?.schema;
const header = (name: OperationName, status: string, headerName: string) => resolve<HeaderObject>(response(name, status).headers?.[headerName]);

/** Every status each operation may answer: the interface's, then those the service adds. */
const STATUSES: Record<OperationName, { interface: string[]; service: string[] }> = {
  // An invalid query (400), a key without the read scope (403), If-None-Match (304).
  listPets: { interface: ['200', '401'], service: ['304', '400', '403', '429', '500', '503'] },
  // A key without the write scope (403), a body too large (413) or not JSON (415).
  createPet: { interface: ['201', '400', '401'], service: ['403', '413', '415', '429', '500', '503'] },
  // A petId that is not a positive integer (400), a key without the read scope (403), If-None-Match (304).
  getPet: { interface: ['200', '401', '404'], service: ['304', '400', '403', '429', '500', '503'] },
};

describe('openapi.json against the pet store interface', () => {
  it('is interface version 1.0.0 in OpenAPI 3.1, every server under the path root /v1', () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(document.info.version).toBe('1.0.0');
    expect(document.servers?.length).toBeGreaterThan(0);
    for (const server of document.servers ?? []) expect(new URL(server.url).pathname).toBe('/v1');
  });

  it('has exactly the three operations, each named as the interface names it and tagged animals', () => {
    const documented = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
      (['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const).flatMap((method) => (item[method] ? [`${method} ${path} ${item[method].operationId ?? ''}`] : [])),
    );
    expect(documented.sort()).toEqual(['get /pets listPets', 'get /pets/{petId} getPet', 'post /pets createPet']);
    for (const name of Object.keys(OPERATIONS) as OperationName[]) expect(operation(name).tags).toEqual(['animals']);
  });

  it.each(Object.entries(STATUSES))('%s documents every status it may answer, and no other', (name, statuses) => {
    expect(Object.keys(responses(name as OperationName)).sort()).toEqual([...statuses.interface, ...statuses.service].sort());
  });

  it.each(Object.keys(OPERATIONS))('%s answers every error with the Error body in application/json', (name) => {
    for (const [status, item] of Object.entries(responses(name as OperationName))) {
      if (Number(status) < 400) continue;
      expect(Object.keys(resolve<ResponseObject>(item).content ?? {}), status).toEqual(['application/json']);
      expect(bodySchema(name as OperationName, status), status).toEqual({ $ref: '#/components/schemas/Error' });
    }
  });

  it('answers a list with a JSON array of Pet, an added animal and a fetched one with a Pet', () => {
    const list = resolve<SchemaObject>(bodySchema('listPets', '200'));
    expect(list.type).toBe('array');
    expect(list.items).toEqual({ $ref: '#/components/schemas/Pet' });
    expect(bodySchema('createPet', '201')).toEqual({ $ref: '#/components/schemas/Pet' });
    expect(bodySchema('getPet', '200')).toEqual({ $ref: '#/components/schemas/Pet' });
  });

  it('takes a required NewPet in application/json to add an animal', () => {
    const body = resolve<RequestBodyObject>(operation('createPet').requestBody);
    expect(body.required).toBe(true);
    expect(Object.keys(body.content)).toEqual(['application/json']);
    expect(body.content['application/json']?.schema).toEqual({ $ref: '#/components/schemas/NewPet' });
  });

  it('requires name and categoryId of a NewPet, and not status', () => {
    expect(schema('NewPet').required?.sort()).toEqual(['categoryId', 'name']);
    expect(Object.keys(schema('NewPet').properties ?? {}).sort()).toEqual(['categoryId', 'name', 'status']);
  });

  it('requires id, name and categoryId of a Pet, and status, which the service always sends', () => {
    expect(schema('Pet').required?.sort()).toEqual(['categoryId', 'id', 'name', 'status']);
    expect(Object.keys(schema('Pet').properties ?? {}).sort()).toEqual(['categoryId', 'id', 'name', 'status']);
  });

  it('types the fields as the interface does: int64 ids, a string name, the three statuses', () => {
    for (const name of ['Pet', 'NewPet']) {
      const { properties = {} } = schema(name);
      expect(resolve<SchemaObject>(properties.categoryId), name).toMatchObject({ type: 'integer', format: 'int64' });
      expect(resolve<SchemaObject>(properties.name), name).toMatchObject({ type: 'string' });
      expect(resolve<SchemaObject>(properties.status).enum, name).toEqual(['available', 'pending', 'sold']);
    }
    expect(resolve<SchemaObject>(schema('Pet').properties?.id)).toMatchObject({ type: 'integer', format: 'int64' });
  });

  it('requires code, message and status of an Error: two strings and an integer', () => {
    expect(schema('Error').required?.sort()).toEqual(['code', 'message', 'status']);
    const { code, message, status } = schema('Error').properties as Record<string, SchemaObject>;
    expect([code?.type, message?.type, status?.type]).toEqual(['string', 'string', 'integer']);
  });

  // The service's addition: a 400 for an input that failed validation lists its fields.
  it('lets an Error list issues, each a path of field names or indexes and a message, and says when', () => {
    expect(Object.keys(schema('Error').properties ?? {}).sort()).toEqual(['code', 'issues', 'message', 'status']);
    const issues = resolve<SchemaObject>(schema('Error').properties?.issues);
    expect(issues).toMatchObject({ type: 'array', items: { $ref: '#/components/schemas/ValidationIssue' } });
    expect(issues.description).toMatch(/400/);
    const issue = schema('ValidationIssue');
    expect(issue.required?.sort()).toEqual(['message', 'path']);
    const { path, message } = issue.properties as Record<string, SchemaObject>;
    expect(message?.type).toBe('string');
    expect(path).toMatchObject({ type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer', minimum: 0 }] } });
  });

  it('bounds limit to 1..100 with the default 20, and filters status by the three values; both optional', () => {
    expect(parameter('listPets', 'limit')).toMatchObject({ in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } });
    expect(parameter('listPets', 'limit')?.required).not.toBe(true);
    const status = parameter('listPets', 'status');
    expect(status?.in).toBe('query');
    expect(status?.required).not.toBe(true);
    expect(resolve<SchemaObject>(status?.schema).enum).toEqual(['available', 'pending', 'sold']);
  });

  it('requires petId in the path: an int64 from 1 to 2^53 - 1, which a JavaScript client reads exactly', () => {
    expect(parameter('getPet', 'petId')).toMatchObject({
      in: 'path',
      required: true,
      schema: { type: 'integer', format: 'int64', minimum: 1, maximum: 9007199254740991 },
    });
  });

  it('marks getPet, and only getPet, deprecated, with its removal on 5 December 2030 and its successor GET /pets', () => {
    expect(operation('getPet').deprecated).toBe(true);
    expect(operation('listPets').deprecated).toBeUndefined();
    expect(operation('createPet').deprecated).toBeUndefined();
    expect(operation('getPet').description).toContain('5 December 2030');
    expect(operation('getPet').description).toContain('`GET /pets` with the `status` filter');

    // The service says it on every answer too (RFC 9745, RFC 8594, RFC 8288), a 304 included.
    for (const status of ['200', '304']) {
      const [deprecation, sunset, link] = ['Deprecation', 'Sunset', 'Link'].map((name) => header('getPet', status, name));
      expect([deprecation?.required, sunset?.required, link?.required], status).toEqual([true, true, true]);
      expect((sunset?.schema as SchemaObject).examples, status).toEqual(['Thu, 05 Dec 2030 00:00:00 GMT']);
      expect('Thu, 05 Dec 2030 00:00:00 GMT', status).toMatch(new RegExp((sunset?.schema as SchemaObject).pattern ?? '$.'));
      expect((link?.schema as SchemaObject).examples, status).toEqual(['</v1/pets>; rel="successor-version"']);
      expect('@1795305600', status).toMatch(new RegExp((deprecation?.schema as SchemaObject).pattern ?? '$.'));
    }
  });

  it('secures every operation with bearerAuth, HTTP bearer authentication, and answers its absence with 401', () => {
    expect(document.components?.securitySchemes?.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const name of Object.keys(OPERATIONS) as OperationName[]) {
      expect(operation(name).security ?? document.security, name).toEqual([{ bearerAuth: [] }]);
      expect(response(name, '401').description, name).toBe('Missing or invalid API key.');
    }
  });
});
