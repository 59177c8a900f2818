import type {
  HeaderObject,
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ResponseObject,
  SchemaObject,
} from 'openapi3-ts/oas31';
import { BEARER_CHALLENGE, insufficientScopeChallenge } from '../admission/admit.js';
import { QUOTA_WINDOW_SECONDS } from '../admission/quota.js';
import { ENTITY_TAG_LENGTH } from '../exchange/exchange.js';
import type { RestOperation } from '../rest/routes.js';
import { transportErrors } from './transport-errors.js';

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

/** A schema's component name (`NewPet`), from its zod meta. */
const schemaId = (schema: { meta(): { id?: unknown } | undefined }): string | undefined => {
  const id = schema.meta()?.id;
  return typeof id === 'string' ? id : undefined;
};

const REQUEST_ID: HeaderObject = {
  description: 'Identifies the request in the service\'s logs: the one sent, when it is a plain token, or a new one.',
  required: true,
  // The plain tokens the service keeps; the ids it makes are UUIDs, which are plain tokens too.
  schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$', maxLength: 128, examples: ['5b0d5f8e-2a8e-4bbf-9d1c-8f3f6c2b9a41'] },
};

/** RFC 9651: an Integer of a structured field has at most 15 digits. */
const SF_INTEGER_DIGITS = 15;

/** The text of a RateLimit field: one of the policies named, then two integer parameters. */
const quotaField = (policies: readonly string[], [first, second]: [string, string]) => ({
  type: 'string' as const,
  pattern: `^"(?:${policies.join('|')})";${first}=[0-9]{1,${SF_INTEGER_DIGITS}};${second}=[0-9]{1,${SF_INTEGER_DIGITS}}$`,
  maxLength: Math.max(...policies.map((policy) => `"${policy}";${first}=;${second}=`.length)) + 2 * SF_INTEGER_DIGITS,
});

/**
 * The quotas a response can report (IETF httpapi RateLimit fields), each as the components
 * `RateLimit-Policy.<policy>` and `RateLimit.<policy>`: requests by a valid key (`per-key`), and
 * failed authentications from one client address (`per-address`). Both count per minute.
 */
const QUOTAS = {
  'per-key': { counts: 'requests with this API key', example: 600 },
  'per-address': { counts: 'failed authentications from this client address', example: 60 },
} as const;
type QuotaPolicy = keyof typeof QUOTAS;

const quotaHeaders = (policy: QuotaPolicy): Record<string, HeaderObject> => ({
  [`RateLimit-Policy.${policy}`]: {
    description: `The quota of ${QUOTAS[policy].counts}: \`q\` per window of \`w\` seconds. Absent when that limit is off.`,
    schema: { ...quotaField([policy], ['q', 'w']), examples: [`"${policy}";q=${QUOTAS[policy].example};w=${QUOTA_WINDOW_SECONDS}`] },
  },
  [`RateLimit.${policy}`]: {
    description: `What is left of the quota of ${QUOTAS[policy].counts}: \`r\` more for the next \`t\` seconds. Absent when that limit is off.`,
    schema: { ...quotaField([policy], ['r', 't']), examples: [`"${policy}";r=${QUOTAS[policy].example - 1};t=${QUOTA_WINDOW_SECONDS}`] },
  },
});

/** The headers responses share, described once as components. */
const COMPONENT_HEADERS: Record<string, HeaderObject> = {
  'X-Request-Id': REQUEST_ID,
  ...quotaHeaders('per-key'),
  ...quotaHeaders('per-address'),
};

const headerRef = (component: string) => ({ $ref: `#/components/headers/${component}` });

/** The RateLimit fields of one quota, under the names they are sent with. */
const quotaRefs = (policy: QuotaPolicy) => ({
  'RateLimit-Policy': headerRef(`RateLimit-Policy.${policy}`),
  RateLimit: headerRef(`RateLimit.${policy}`),
});

/** A 429 reports the quota that is spent, whichever of them it is. */
const spentQuota = (description: string, parameters: [string, string]): HeaderObject => ({
  description: `${description} Absent when that limit is off.`,
  schema: quotaField(Object.keys(QUOTAS), parameters),
});

/**
 * The headers of a response by status, besides its own: a 401 reports the client address's quota
 * of failed authentications, a 429 the quota that is spent, every other response the key's quota.
 */
const transportHeaders = (status: string) => {
  if (status === '401') return { 'X-Request-Id': headerRef('X-Request-Id'), ...quotaRefs('per-address') };
  if (status === '429') {
    return {
      'X-Request-Id': headerRef('X-Request-Id'),
      'RateLimit-Policy': spentQuota(
        'The quota that is spent: the API key\'s (`per-key`), or that of failed authentications from the client address (`per-address`).',
        ['q', 'w'],
      ),
      RateLimit: spentQuota('What is left of the spent quota: `r` more for the next `t` seconds.', ['r', 't']),
    };
  }
  return { 'X-Request-Id': headerRef('X-Request-Id'), ...quotaRefs('per-key') };
};

const RETRY_AFTER: HeaderObject = {
  description: 'Seconds until the quota allows another request.',
  required: true,
  // Every quota counts per window; its count starts again within one.
  schema: { type: 'integer', format: 'int32', minimum: 1, maximum: QUOTA_WINDOW_SECONDS, examples: [17] },
};

const RETRY_LATER: HeaderObject = {
  description: 'Seconds to wait before trying again.',
  required: true,
  schema: { type: 'integer', format: 'int32', minimum: 1, maximum: QUOTA_WINDOW_SECONDS, examples: [1] },
};

/** `scope`: the one the operation needs, which its 403 names. */
const errorResponse = (status: number, description: string, scope: string): ResponseObject => ({
  description,
  headers: {
    ...(status === 401 && {
      'WWW-Authenticate': {
        description: 'The RFC 6750 bearer challenge.',
        required: true,
        schema: { type: 'string', const: BEARER_CHALLENGE },
      },
    }),
    ...(status === 403 && {
      'WWW-Authenticate': {
        description: 'The RFC 6750 challenge naming the scope the key lacks.',
        required: true,
        schema: { type: 'string', const: insufficientScopeChallenge(scope) },
      },
    }),
    ...(status === 429 && { 'Retry-After': RETRY_AFTER }),
    ...(status === 503 && { 'Retry-After': RETRY_LATER }),
  },
  content: { 'application/json': { schema: ERROR_SCHEMA } },
});

/**
 * A paginated procedure's result is `{ items, nextCursor }`; over REST the body is the items and
 * the cursor travels in the `Link` header, so the document shows the items' schema as the body.
 */
const describeItemsAsTheBody = (document: OpenAPIObject, response: ResponseObject | undefined) => {
  const json = response?.content?.['application/json'];
  const ref = (json?.schema as { $ref?: string } | undefined)?.$ref;
  const name = ref?.replace('#/components/schemas/', '');
  const page = name === undefined ? undefined : (document.components?.schemas?.[name] as SchemaObject | undefined);
  const items = page?.properties?.items;
  if (!json || !name || !items) throw new Error('a paginated result must be a component with an `items` property');
  json.schema = items;
  delete document.components?.schemas?.[name];
};

/** The strong tag of a GET's representation (rest/conditional.ts). */
const ENTITY_TAG_SCHEMA: SchemaObject = {
  type: 'string',
  pattern: '^"[A-Za-z0-9_-]{27}"$',
  maxLength: ENTITY_TAG_LENGTH,
  examples: ['"2jmj7l5rSw0yVb_vlWAYkK_YBwk"'],
};

const ETAG: HeaderObject = {
  description: 'A strong tag of this representation; send it back as `If-None-Match` to get a 304 while it is current.',
  required: true,
  schema: ENTITY_TAG_SCHEMA,
};

const IF_NONE_MATCH: ParameterObject = {
  name: 'If-None-Match',
  in: 'header',
  description: 'Tags the client holds (`*`: any): when one is current, the answer is 304 with no body, and the quota is not spent.',
  schema: {
    type: 'string',
    // `*`, or a list of entity tags, weak or strong (RFC 9110 §13.1.2).
    pattern: '^(\\*|(W/)?"[^"]*"(\\s*,\\s*(W/)?"[^"]*")*)$',
    maxLength: 1024,
    examples: ['"2jmj7l5rSw0yVb_vlWAYkK_YBwk"'],
  },
};

/**
 * A GET answers conditionally: its 200 carries an ETag, it takes If-None-Match, and it may answer
 * 304 Not Modified, with the tag and the headers of the 200 but no body.
 */
const describeConditionalGet = (operation: OperationObject, responses: Record<string, ResponseObject>) => {
  const ok = responses['200'];
  if (!ok) return;
  ok.headers = { ...ok.headers, ETag: ETAG };
  operation.parameters = [...(operation.parameters ?? []), IF_NONE_MATCH];
  responses['304'] = {
    description: 'Not Modified: the `If-None-Match` tag is current. No body; the quota is not spent.',
    headers: { ...ok.headers },
  };
};

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
 * - the errors only the transport gives (transport-errors.ts);
 * - the request body as the named component its zod schema declares (`NewPet`): the generator
 *   rebuilds it inline;
 * - `required: true` on path parameters, which OpenAPI demands and the generator leaves out when
 *   the parameter's schema is a preprocess pipe;
 * - tag descriptions;
 * - the headers the transport adds to every response (request id, quota) and to a 429;
 * - whether each server is internal (`x-internal`, which OWASP's API inventory rule asks for);
 * - conditional GETs: the ETag, If-None-Match and the 304;
 * - the scope each operation needs (its description, and its 403's challenge).
 */
export const completeDocument = (generated: OpenAPIObject, { operations, servers, tags }: Completion): OpenAPIObject => {
  const document = structuredClone(generated);
  document.servers = [
    // Both are the interface's own environments, for its clients: neither is internal.
    { url: servers.publicBaseUrl, description: 'Production', 'x-internal': false },
    ...(servers.stagingBaseUrl ? [{ url: servers.stagingBaseUrl, description: 'Staging', 'x-internal': false }] : []),
  ];
  document.tags = Object.entries(tags).map(([name, description]) => ({ name, description }));
  const components = (document.components ??= {});
  components.headers = { ...components.headers, ...COMPONENT_HEADERS };
  // The generator's own `error.<CODE>` schemas are replaced by Error below.
  const schemas = Object.fromEntries(
    Object.entries(components.schemas ?? {}).filter(([name]) => !name.startsWith('error.')),
  );
  components.schemas = schemas;

  for (const restOperation of operations) {
    const operation = operationOf(document, restOperation);
    const { meta } = restOperation;
    const bodySchemaName = schemaId(restOperation.operation.input);
    const responses = (operation.responses ??= {}) as Record<string, ResponseObject>;

    if (meta.paginated) describeItemsAsTheBody(document, responses['200']);

    const successStatus = meta.successStatus ?? 200;
    if (successStatus !== 200 && responses['200']) {
      responses[String(successStatus)] = responses['200'];
      delete responses['200'];
    }

    for (const [status, description] of [...Object.entries(meta.openapi?.errorResponses ?? {}), ...Object.entries(transportErrors({ takesBody: operation.requestBody !== undefined }))]) {
      responses[status] = errorResponse(Number(status), String(description), meta.scope);
    }
    // Spectral's oas rules accept scopes in a security requirement only for OAuth schemes, so the
    // description says it; the 403's challenge names it too.
    operation.description = `${operation.description ?? ''} Needs an API key with the \`${meta.scope}\` scope (403 otherwise).`.trim();

    const body = operation.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined;
    const json = body?.content?.['application/json'];
    if (json && bodySchemaName) {
      schemas[bodySchemaName] = json.schema as SchemaObject;
      json.schema = { $ref: `#/components/schemas/${bodySchemaName}` };
    }

    if (restOperation.method === 'GET') describeConditionalGet(operation, responses);

    for (const [status, response] of Object.entries(responses)) {
      response.headers = { ...response.headers, ...transportHeaders(status) };
    }

    for (const parameter of (operation.parameters ?? []) as ParameterObject[]) {
      if (parameter.in === 'path') parameter.required = true;
    }
    if (operation.parameters?.length === 0) delete operation.parameters;
  }

  return document;
};
