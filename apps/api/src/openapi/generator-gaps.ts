import type { OpenAPIObject, OperationObject, ResponseObject, SchemaObject } from 'openapi3-ts/oas31';
import { JSON_TYPE } from '../http/reply.js';

/*
 * Where trpc-to-openapi 3.3 writes something other than what the service does, and neither the
 * procedures' `openapi` meta nor zod's `.meta()` can change it.
 */

/** The generator names its own `error.<CODE>` schemas; every error the service sends has the `Error` body. */
export const withoutGeneratedErrorSchemas = <T>(schemas: Record<string, T>): Record<string, T> =>
  Object.fromEntries(Object.entries(schemas).filter(([name]) => !name.startsWith('error.')));

/** The generator answers every success with 200; the REST transport answers with the meta's `successStatus`. */
export const moveSuccessTo = (status: number, responses: Record<string, ResponseObject>) => {
  const ok = responses['200'];
  if (status === 200 || !ok) return;
  responses[String(status)] = ok;
  delete responses['200'];
};

/**
 * The generator shows a paginated procedure's result, `{ items, nextCursor }`; over REST the body
 * is the items and the cursor travels in the `Link` header, so the items' schema is the body.
 */
export const describeItemsAsTheBody = (document: OpenAPIObject, response: ResponseObject | undefined) => {
  const json = response?.content?.[JSON_TYPE];
  const ref = (json?.schema as { $ref?: string } | undefined)?.$ref;
  const name = ref?.replace('#/components/schemas/', '');
  const page = name === undefined ? undefined : (document.components?.schemas?.[name] as SchemaObject | undefined);
  const items = page?.properties?.items;
  if (!json || !name || !items) throw new Error('a paginated result must be a component with an `items` property');
  json.schema = items;
  delete document.components?.schemas?.[name];
};

/**
 * The generator rebuilds the request body's schema inline (it omits the path parameters from it,
 * which drops its id); the document names it as the component its zod meta declares (`NewPet`).
 */
export const nameRequestBody = (document: OpenAPIObject, operation: OperationObject, name: string | undefined) => {
  const json = (operation.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)?.content?.[JSON_TYPE];
  if (!json || !name) return;
  const schemas = (document.components ??= {}).schemas ??= {};
  schemas[name] = json.schema as SchemaObject;
  json.schema = { $ref: `#/components/schemas/${name}` };
};
