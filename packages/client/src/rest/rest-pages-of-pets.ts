import type { ListPetsQuery, Pet } from '../generated/router-types.js';
import type { PetstoreRestClient, RestError } from './create-rest-client.js';

/** A REST call the service refused, thrown where a loop cannot return `{ error }`: the Error body's fields, and the response. */
export class PetstoreRestError extends Error {
  override readonly name = 'PetstoreRestError';
  readonly code: RestError['code'] | undefined;
  readonly status: number;
  readonly issues: RestError['issues'];

  constructor(
    readonly response: Response,
    body: RestError | string | undefined,
  ) {
    super(typeof body === 'object' ? body.message : `${response.url} answered ${String(response.status)} ${response.statusText}`);
    this.status = response.status;
    this.code = typeof body === 'object' ? body.code : undefined;
    this.issues = typeof body === 'object' ? body.issues : undefined;
  }
}

/**
 * The `cursor` of the next page, from `Link: <…>; rel="next"` (RFC 8288). Only the cursor is taken:
 * the link's address is the service's own view of its path, which a proxy serving it under a
 * prefix does not share, while the client's base address is right by definition.
 */
const nextCursorOf = (response: Response): string | undefined => {
  for (const link of (response.headers.get('link') ?? '').split(/,\s*(?=<)/)) {
    const [, target, params = ''] = /^\s*<([^>]*)>(.*)$/.exec(link) ?? [];
    if (target !== undefined && /;\s*rel="?next"?\s*(?:;|$)/i.test(params)) {
      return new URL(target, 'http://base.invalid').searchParams.get('cursor') ?? undefined;
    }
  }
  return undefined;
};

/**
 * Every page of `GET /v1/pets`, first to last, following each page's `Link: rel="next"`, as
 * `pagesOfPets` does over tRPC. A refusal ends the walk with a `PetstoreRestError`; 429 and 503
 * are retried first, as every call of the client is.
 */
export async function* restPagesOfPets(
  client: PetstoreRestClient,
  query: Omit<ListPetsQuery, 'cursor'> = {},
): AsyncGenerator<Pet[], void, undefined> {
  let cursor: string | undefined;
  do {
    const { data, error, response } = await client.GET('/pets', { params: { query: { ...query, ...(cursor !== undefined && { cursor }) } } });
    if (data === undefined) throw new PetstoreRestError(response, error);
    yield data;
    cursor = nextCursorOf(response);
  } while (cursor !== undefined);
}
