import type { OpenAPIObject } from 'openapi3-ts/oas31';
import { type ContractChecker, createContractChecker } from './contract.js';

export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

// One checker per server, built from the document that server itself serves.
const checkers = new Map<string, Promise<ContractChecker>>();
const checkerFor = (origin: string) => {
  let checker = checkers.get(origin);
  if (!checker) {
    checker = fetch(`${origin}/v1/openapi.json`)
      .then((response) => response.json() as Promise<OpenAPIObject>)
      .then(createContractChecker);
    checkers.set(origin, checker);
  }
  return checker;
};

export interface SeenResponse {
  method: string;
  url: string;
  status: number;
  header(name: string): string | null;
  /** The body as text; empty when there is none. */
  text: string;
}

/** Throws a ContractViolation when the response is not what the served document promises. */
export const assertMatchesContract = async (seen: SeenResponse): Promise<void> => {
  const url = new URL(seen.url);
  let body: unknown;
  if (seen.method !== 'HEAD' && seen.text !== '') {
    try {
      body = JSON.parse(seen.text);
    } catch {
      throw new ContractViolation(`${seen.method} ${url.pathname} → ${seen.status}: the body is not JSON`);
    }
  }
  const problems = (await checkerFor(url.origin))({ ...seen, url, body });
  if (problems.length > 0) throw new ContractViolation(problems.join('\n'));
};

/**
 * fetch, plus a check of every REST response against the OpenAPI document of the server that
 * sent it, so the code and the document cannot drift apart unnoticed.
 */
export const contractFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  await assertMatchesContract({
    method,
    url: response.url,
    status: response.status,
    header: (name) => response.headers.get(name),
    text: await response.clone().text(),
  });
  return response;
};
