import type {
  HeaderObject,
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ResponseObject,
  SchemaObject,
} from 'openapi3-ts/oas31';
import { BEARER_CHALLENGE } from '../auth/bearer.js';
import type { RestOperation } from '../rest/operations.js';

export interface DocumentServers {
  publicBaseUrl: string;
  stagingBaseUrl?: string | undefined;
}

export interface Completion {
  operations: RestOperation[];
  servers: DocumentServers;
  /** Tag descriptions; the generator only takes names. */
  tags: Record<string, string>;
}

const ERROR_SCHEMA = { $ref: '#/components/schemas/Error' };

/** Headers every response of every operation can carry, described once as components. */
const SHARED_HEADERS: Record<string, HeaderObject> = {
  'X-Request-Id': {
    description: 'Identifies the request in the service\'s logs: the one sent, when it is a plain token, or a new one.',
    required: true,
    schema: { type: 'string', examples: ['5b0d5f8e-2a8e-4bbf-9d1c-8f3f6c2b9a41'] },
  },
  'RateLimit-Policy': {
    description: 'The per-key quota (IETF httpapi RateLimit fields): requests `q` per window `w` seconds. Absent when rate limiting is off.',
    schema: { type: 'string', examples: ['"per-key";q=600;w=60'] },
  },
  RateLimit: {
    description: 'What is left of the quota: `r` requests for the next `t` seconds. Absent when rate limiting is off.',
    schema: { type: 'string', examples: ['"per-key";r=599;t=60'] },
  },
};

const RETRY_AFTER: HeaderObject = {
  description: 'Seconds until the quota allows another request.',
  required: true,
  schema: { type: 'integer', minimum: 1, examples: [17] },
};

const headerRefs = (names: string[]) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

const errorResponse = (status: number, description: string): ResponseObject => ({
  description,
  headers: {
    ...(status === 401 && {
      'WWW-Authenticate': {
        description: 'The RFC 6750 bearer challenge.',
        required: true,
        schema: { type: 'string', examples: [BEARER_CHALLENGE] },
      },
    }),
    ...(status === 429 && { 'Retry-After': RETRY_AFTER }),
  },
  content: { 'application/json': { schema: ERROR_SCHEMA } },
});

const operationOf = (document: OpenAPIObject, { method, path }: RestOperation): OperationObject => {
  const operation = document.paths?.[path]?.[method.toLowerCase() as 'get'];
  if (!operation) throw new Error(`the generated document has no ${method} ${path}`);
  return operation;
};

/**
 * What trpc-to-openapi cannot say, added to the document it generated. Every addition is read
 * from the same procedure meta, zod schemas and constants the server runs on:
 * - a second server (staging): the generator takes one base URL;
 * - a success status other than 200 (createPet's 201, from `successStatus`);
 * - error responses with our Error body and each operation's own descriptions: the generator
 *   points them at its own `error.<CODE>` schemas and reuses the first description it met per code;
 * - the request body as the named component its zod schema declares (`NewPet`): the generator
 *   rebuilds it inline;
 * - `required: true` on path parameters, which OpenAPI demands and the generator leaves out when
 *   the parameter's schema is a preprocess pipe;
 * - tag descriptions;
 * - the headers the transport adds to every response (request id, quota) and to a 429.
 */
export const completeDocument = (generated: OpenAPIObject, { operations, servers, tags }: Completion): OpenAPIObject => {
  const document = structuredClone(generated);
  document.servers = [
    { url: servers.publicBaseUrl, description: 'Production' },
    ...(servers.stagingBaseUrl ? [{ url: servers.stagingBaseUrl, description: 'Staging' }] : []),
  ];
  document.tags = Object.entries(tags).map(([name, description]) => ({ name, description }));
  const components = (document.components ??= {});
  components.headers = { ...components.headers, ...SHARED_HEADERS };
  // The generator's own `error.<CODE>` schemas are replaced by Error below.
  const schemas = Object.fromEntries(
    Object.entries(components.schemas ?? {}).filter(([name]) => !name.startsWith('error.')),
  );
  components.schemas = schemas;

  for (const restOperation of operations) {
    const operation = operationOf(document, restOperation);
    const { meta, bodySchemaName } = restOperation;
    const responses = (operation.responses ??= {}) as Record<string, ResponseObject>;

    const successStatus = meta.successStatus ?? 200;
    if (successStatus !== 200 && responses['200']) {
      responses[String(successStatus)] = responses['200'];
      delete responses['200'];
    }

    for (const [status, description] of Object.entries(meta.openapi?.errorResponses ?? {})) {
      responses[status] = errorResponse(Number(status), String(description));
    }

    const body = operation.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined;
    const json = body?.content?.['application/json'];
    if (json && bodySchemaName) {
      schemas[bodySchemaName] = json.schema as SchemaObject;
      json.schema = { $ref: `#/components/schemas/${bodySchemaName}` };
    }

    // Every response: its request id; every response to a request with a valid key: the quota.
    for (const [status, response] of Object.entries(responses)) {
      const names = status === '401' ? ['X-Request-Id'] : Object.keys(SHARED_HEADERS);
      response.headers = { ...response.headers, ...headerRefs(names) };
    }

    for (const parameter of (operation.parameters ?? []) as ParameterObject[]) {
      if (parameter.in === 'path') parameter.required = true;
    }
    if (operation.parameters?.length === 0) delete operation.parameters;
  }

  return document;
};
