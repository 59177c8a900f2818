import { request as httpRequest } from 'node:http';
import type { ErrorBody } from '@petstore/core';
import { expect } from 'vitest';
import { assertMatchesContract, contractFetch, nextPageLink } from '../../src/testing/index.js';

export interface CallOptions {
  method?: string;
  /** The API key to send as a bearer token; null sends no Authorization header. */
  key?: string | null;
  /** Serialised as JSON with `Content-Type: application/json`. */
  json?: unknown;
  body?: string;
  headers?: Record<string, string>;
}

/**
 * Calls the server over real HTTP, as any REST client would. Every REST response is checked
 * against the OpenAPI document the server serves.
 */
export const call = (
  server: { url: string; apiKey: string },
  path: string,
  { method = 'GET', key = server.apiKey, json, body, headers = {} }: CallOptions = {},
) =>
  contractFetch(`${server.url}${path}`, {
    method,
    headers: {
      ...(key !== null && { Authorization: `Bearer ${key}` }),
      ...(json !== undefined && { 'Content-Type': 'application/json' }),
      ...headers,
    },
    body: json !== undefined ? JSON.stringify(json) : body,
  });

/**
 * Asserts `body` is the Error body of a response with this status: its code (any, unless named),
 * a message and the status, and a list of issues only on a 400, where an input failed validation.
 */
export const expectErrorBody = (body: unknown, status: number, code: unknown = expect.any(String)) => {
  const { issues, ...rest } = body as ErrorBody;
  expect(rest).toEqual({ code, message: expect.any(String), status });
  if (issues !== undefined) expect(status).toBe(400);
};

/** Asserts the response is the contract's Error body for this status and code, and returns it. */
export const expectError = async (response: Response, status: number, code: string): Promise<ErrorBody> => {
  expect(response.headers.get('content-type')).toMatch(/^application\/json(;|$)/);
  const body = (await response.json()) as ErrorBody;
  expect(response.status).toBe(status);
  expectErrorBody(body, status, code);
  expect(body.message).not.toMatch(/\n\s+at |node_modules|\.ts:\d+|SQLITE|sqlite/i);
  if (status === 401) expect(response.headers.get('www-authenticate')).toBe('Bearer realm="petstore"');
  return body;
};

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A request fetch() cannot make: the body sent in chunks exactly as given (chunked transfer
 * encoding unless a Content-Length header is set). A server may answer before the body is
 * finished, so write errors after the answer are expected and ignored. The response is checked
 * against the OpenAPI document like any other.
 */
export const rawRequest = (
  url: string,
  {
    method = 'POST',
    path,
    headers = {},
    chunks = [],
  }: {
    method?: string;
    path: string;
    headers?: Record<string, string>;
    /** Written in order; a promise holds the rest of the body back until it settles. */
    chunks?: (string | Buffer | Promise<string | Buffer>)[];
  },
) =>
  new Promise<RawResponse>((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        const header = (name: string) => {
          const value = res.headers[name.toLowerCase()];
          return value === undefined ? null : String(value);
        };
        assertMatchesContract({ method, url: `${url}${path}`, status: res.statusCode ?? 0, header, text: body }).then(
          () => {
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
          },
          reject,
        );
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    void (async () => {
      for (const chunk of chunks) req.write(await chunk);
      req.end();
    })();
  });

export const petsCount = async (server: { url: string; apiKey: string }) => {
  let count = 0;
  let next: string | undefined = '/v1/pets?limit=100';
  while (next) {
    const response = await call(server, next);
    count += ((await response.json()) as unknown[]).length;
    next = nextPageLink(response);
  }
  return count;
};

/**
 * A JSON POST with a bearer key and plain fetch: for a service running as its own process while a
 * fault is injected, where the answer is what the test checks and the contract check would fetch
 * the document from the service under test.
 */
export const postJson = (url: string, key: string, json: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(json),
  });
