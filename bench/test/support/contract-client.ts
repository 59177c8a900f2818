import { createContractChecker } from '@petstore/api/testing';
import { expect } from 'vitest';

type ContractDocument = Parameters<typeof createContractChecker>[0];
type ContractChecker = ReturnType<typeof createContractChecker>;

/**
 * The service's extras that the peers and bare servers do not send: a request id and an ETag are
 * what the service adds for its own operators and caches, not what the operations answer, so a
 * server written the way a framework's docs recommend is not held to them. Every other header,
 * status and body is checked alike.
 */
const PEER_OMITTED_HEADERS = ['X-Request-Id', 'ETag'] as const;

/** The checkers for the service and for the others, from the document the service serves. */
export const contractCheckers = async (serviceUrl: string): Promise<{ service: ContractChecker; peer: ContractChecker }> => {
  const response = await fetch(`${serviceUrl}/v1/openapi.json`);
  expect(response.status).toBe(200);
  const document = (await response.json()) as ContractDocument;
  return {
    service: createContractChecker(document),
    peer: createContractChecker(document, { ignoredHeaders: PEER_OMITTED_HEADERS }),
  };
};

export interface CallOptions {
  method?: string;
  /** The bearer token to send; null sends no Authorization header. */
  key?: string | null;
  /** Sent as JSON with `Content-Type: application/json`. */
  json?: unknown;
  /** Sent as it is, with `Content-Type: application/json`. */
  body?: string;
}

export interface Answer {
  status: number;
  header(name: string): string | null;
  body: unknown;
}

/**
 * One call over real HTTP, its response checked against the contract before the test sees it: a
 * status the operation does not document, a body off its schema or a required header missing
 * fails the test here.
 */
export const callWith =
  (check: ContractChecker, baseUrl: string, apiKey: string) =>
  async (path: string, { method = 'GET', key = apiKey, json, body }: CallOptions = {}): Promise<Answer> => {
    const sent = json === undefined ? body : JSON.stringify(json);
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(key !== null && { Authorization: `Bearer ${key}` }),
        ...(sent !== undefined && { 'Content-Type': 'application/json' }),
      },
      body: sent,
    });
    const text = await response.text();
    const answer: Answer = {
      status: response.status,
      header: (name) => response.headers.get(name),
      body: text === '' ? undefined : (JSON.parse(text) as unknown),
    };
    expect(check({ method, url: new URL(response.url), ...answer })).toEqual([]);
    return answer;
  };

/** The address of the next page, from `Link: <…>; rel="next"`, or undefined on the last page. */
export const nextPage = (answer: Answer): string | undefined => /<([^>]+)>; rel="next"/.exec(answer.header('link') ?? '')?.[1];
