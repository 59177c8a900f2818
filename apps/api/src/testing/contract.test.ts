import { describe, expect, it } from 'vitest';
import { createOpenApiDocument } from '../openapi/document.js';
import { type SeenResponse, createContractChecker } from './contract.js';

// The checker must fail when code and document disagree; these responses are built to disagree.
const check = createContractChecker(createOpenApiDocument({ publicBaseUrl: 'http://localhost:3000/v1' }));

const pet = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
const seen = (overrides: Partial<SeenResponse> & { path: string }): SeenResponse => {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r-1' };
  return {
    method: 'GET',
    status: 200,
    body: [pet],
    header: (name) => headers[name.toLowerCase()] ?? null,
    ...overrides,
    url: new URL(`http://localhost:3000${overrides.path}`),
  };
};
const withHeaders = (headers: Record<string, string>) => (name: string) =>
  ({ 'content-type': 'application/json', 'x-request-id': 'r-1', ...headers })[name.toLowerCase()] ?? null;

describe('the contract checker', () => {
  it('passes what the document promises', () => {
    expect(check(seen({ path: '/v1/pets', header: withHeaders({ etag: '"2jmj7l5rSw0yVb_vlWAYkK_YBwk"' }) }))).toEqual([]);
    expect(
      check(seen({ path: '/v1/pets', method: 'POST', status: 201, body: pet, header: withHeaders({ location: '/v1/pets/1' }) })),
    ).toEqual([]);
  });

  it.each([
    ['an undocumented status', seen({ path: '/v1/pets', status: 404 }), /status not documented/],
    ['a body off its schema', seen({ path: '/v1/pets', body: [{ ...pet, extra: 1 }] }), /body data\/0 must NOT have additional properties/],
    ['an id beyond 2^53', seen({ path: '/v1/pets', body: [{ ...pet, id: 2 ** 53 }] }), /body/],
    ['a missing required header', seen({ path: '/v1/pets', method: 'POST', status: 201, body: pet }), /header Location missing/],
    ['getPet without its deprecation headers', seen({ path: '/v1/pets/1', body: pet }), /header Deprecation missing/],
    ['a page without its ETag', seen({ path: '/v1/pets' }), /header ETag missing/],
    ['an Error body off its schema', seen({ path: '/v1/pets', status: 400, body: { code: 'BAD_REQUEST' } }), /required property 'message'/],
    ['a success on an unknown path', seen({ path: '/v1/unknown' }), /undocumented operation/],
    ['an unknown path without the Error body', seen({ path: '/v1/unknown', status: 404, body: { error: 'x' } }), /body/],
    ['a body that is not JSON', seen({ path: '/v1/pets', header: withHeaders({ 'content-type': 'text/html' }) }), /Content-Type/],
    ['a response without its request id', seen({ path: '/v1/pets', header: (name) => (name === 'content-type' ? 'application/json' : null) }), /X-Request-Id missing/],
    ['a Retry-After that is not a number of seconds', seen({ path: '/v1/pets', status: 429, body: { code: 'TOO_MANY_REQUESTS', message: 'm', status: 429 }, header: withHeaders({ 'retry-after': 'soon' }) }), /header Retry-After/],
  ])('reports %s', (_, seen, problem) => {
    expect(check(seen).join('\n')).toMatch(problem);
  });

  describe('for a peer, with headers it ignores', () => {
    const checkPeer = createContractChecker(createOpenApiDocument({ publicBaseUrl: 'http://localhost:3000/v1' }), {
      ignoredHeaders: ['x-request-id', 'ETag'],
    });
    const plain = (headers: Record<string, string> = {}) => (name: string) =>
      ({ 'content-type': 'application/json', ...headers })[name.toLowerCase()] ?? null;

    it('passes a page without the ignored headers, which the service itself must send', () => {
      const page = seen({ path: '/v1/pets', header: plain() });
      expect(checkPeer(page)).toEqual([]);
      expect(check(page).join('\n')).toMatch(/X-Request-Id missing[^]*ETag missing|ETag missing[^]*X-Request-Id missing/);
    });

    it('still requires and checks every other header', () => {
      expect(checkPeer(seen({ path: '/v1/pets', method: 'POST', status: 201, body: pet, header: plain() })).join('\n')).toMatch(/header Location missing/);
      expect(checkPeer(seen({ path: '/v1/pets/1', body: pet, header: plain() })).join('\n')).toMatch(/header Deprecation missing/);
      const badRetry = seen({ path: '/v1/pets', status: 429, body: { code: 'TOO_MANY_REQUESTS', message: 'm', status: 429 }, header: plain({ 'retry-after': 'soon' }) });
      expect(checkPeer(badRetry).join('\n')).toMatch(/header Retry-After/);
    });

    it('still checks the body and the status', () => {
      expect(checkPeer(seen({ path: '/v1/pets', status: 400, body: { code: 'BAD_REQUEST' }, header: plain() })).join('\n')).toMatch(/required property 'message'/);
      expect(checkPeer(seen({ path: '/v1/pets', status: 404, header: plain() })).join('\n')).toMatch(/status not documented/);
    });
  });

  it('leaves paths outside the document alone', () => {
    expect(check(seen({ path: '/trpc/listPets', status: 418, body: 'anything' }))).toEqual([]);
  });
});
