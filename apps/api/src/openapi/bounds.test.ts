import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MAX_ERROR_MESSAGE_LENGTH, PAGE_SIZE } from '@petstore/core';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import type { HeaderObject, OpenAPIObject, ParameterObject, ReferenceObject, ResponseObject, SchemaObject } from 'openapi3-ts/oas31';
import { describe, expect, it } from 'vitest';
import { QUOTA_WINDOW_SECONDS } from '../admission/quota.js';
import { resolveReference } from './resolve-reference.js';
import { createOpenApiDocument } from './document.js';

// The bounds OWASP's API Security rules ask for, read from the constants the service runs on.
const document = createOpenApiDocument({ publicBaseUrl: 'https://petstore.example/v1' });
const schema = (name: string) => document.components?.schemas?.[name] as SchemaObject;
const allResponses = (doc: OpenAPIObject) =>
  Object.values(doc.paths ?? {}).flatMap((item) =>
    ['get', 'post'].flatMap((method) =>
      (Object.entries(item[method as 'get']?.responses ?? {}) as [string, ResponseObject | ReferenceObject][]).map(([status, listed]) => [status, resolveReference<ResponseObject>(doc, listed) as ResponseObject] as const),
    ),
  );
const header = (declared: HeaderObject | ReferenceObject | undefined) => resolveReference<HeaderObject>(document, declared);
const matches = (declared: HeaderObject | undefined, value: string) => {
  const { pattern, maxLength } = declared?.schema as SchemaObject;
  return new RegExp(pattern ?? '', 'u').test(value) && value.length <= (maxLength ?? 0);
};

describe('the bounds the document states', () => {
  it('a page holds at most PAGE_SIZE.max animals, and limit is an int32', () => {
    expect(schema('Pets')).toMatchObject({ type: 'array', maxItems: PAGE_SIZE.max });
    const [limit] = document.paths?.['/pets']?.get?.parameters as ParameterObject[];
    expect(limit?.schema).toMatchObject({ format: 'int32', maximum: PAGE_SIZE.max });
  });

  it('an Error has a code tRPC knows, a message no longer than any the service makes, an int32 status', () => {
    const { code, message, status } = schema('Error').properties as Record<string, SchemaObject>;
    expect(code?.enum).toEqual(Object.keys(TRPC_ERROR_CODES_BY_KEY));
    expect(message?.maxLength).toBe(MAX_ERROR_MESSAGE_LENGTH);
    expect(status).toMatchObject({ format: 'int32', minimum: 400, maximum: 599 });
  });

  it('Retry-After is an int32 from 1 to the quota window', () => {
    const retryAfters = allResponses(document).flatMap(([status, response]) => (status === '429' ? [response.headers?.['Retry-After']] : []));
    expect(retryAfters).toHaveLength(3);
    for (const retryAfter of retryAfters) {
      expect(header(retryAfter)?.schema).toMatchObject({ type: 'integer', format: 'int32', minimum: 1, maximum: QUOTA_WINDOW_SECONDS });
    }
  });

  it('a 401 carries the per-address quota, a 429 either quota, any other response the per-key one, never required', () => {
    for (const [status, response] of allResponses(document)) {
      const policy = header(response.headers?.['RateLimit-Policy']);
      const left = header(response.headers?.RateLimit);
      expect(policy?.required, status).toBeUndefined();
      expect(left?.required, status).toBeUndefined();
      const perKey = matches(policy, `"per-key";q=600;w=${QUOTA_WINDOW_SECONDS}`) && matches(left, '"per-key";r=0;t=1');
      const perAddress = matches(policy, `"per-address";q=60;w=${QUOTA_WINDOW_SECONDS}`) && matches(left, '"per-address";r=59;t=60');
      expect([status, perKey, perAddress]).toEqual([status, status !== '401', status === '401' || status === '429']);
    }
  });

  it('names the MIT license of the LICENSE file', () => {
    expect(document.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    const license = readFileSync(fileURLToPath(new URL('../../../../LICENSE', import.meta.url)), 'utf8');
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) 2026 Petstore contributors\n/);
  });
});
