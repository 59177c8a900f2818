import { encodeCursor } from '@petstore/core';
import fc from 'fast-check';
import { STREAM, type WireRequest, batch, single } from './trpc-wire.js';

/**
 * Requests to `/trpc` as tRPC's links send them and as they should not: every procedure and some
 * unknown ones, valid and invalid inputs, batches and streamed batches, five methods, four
 * content types, and the malformed edges (no JSON, a batch input that is no object, 51 calls,
 * bad percent-encoding, a trailing slash). Ids stay small so most `getPet` calls find an animal.
 */

const status = fc.constantFrom('available', 'pending', 'sold');
const petId = fc.integer({ min: 1, max: 12 });

/** Each procedure's inputs, valid three times as often as not (wrong types, unknown fields, bounds). */
const INPUTS: Record<string, fc.Arbitrary<unknown>> = {
  listPets: fc.oneof(
    { weight: 3, arbitrary: fc.record({ limit: fc.integer({ min: 1, max: 5 }), status, cursor: petId.map(encodeCursor) }, { requiredKeys: ['limit'] }) },
    fc.constantFrom({ limit: 0 }, { limit: 101 }, { limit: '2' }, { limit: 2.5 }, { limit: 2, colour: 'red' }, { status: 'lost' }, { cursor: 'bogus' }),
  ),
  getPet: fc.oneof({ weight: 3, arbitrary: fc.record({ petId }) }, fc.constantFrom({ petId: 0 }, { petId: 'x' }, {}, { petId: 1, extra: true })),
  createPet: fc.oneof(
    { weight: 3, arbitrary: fc.record({ name: fc.constantFrom('Rex', ' Tom ', 'Ünal'), categoryId: fc.integer({ min: 1, max: 3 }), status }, { requiredKeys: ['name', 'categoryId'] }) },
    fc.constantFrom({ name: '' }, { name: 'Rex' }, { name: 5, categoryId: 1 }, { name: 'Rex', categoryId: 1, owner: 'me' }, { name: 'Rex', categoryId: 1, status: 'lost' }),
  ),
};
const junk = fc.constantFrom(null, 42, 'text', [1, 2], true);

const UNKNOWN = ['nope', 'ListPets', 'pets.listPets', 'böse'];

/** A call to one of `names` (or, now and then, to no procedure at all), with its input or none. */
const callOf = (names: string[]) =>
  fc
    .oneof({ weight: 6, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: fc.constantFrom(...UNKNOWN) })
    .chain((name) =>
      fc.record({
        name: fc.constant(name),
        input: fc.option(fc.oneof({ weight: 6, arbitrary: INPUTS[name] ?? junk }, junk), { nil: undefined, freq: 6 }),
      }),
    );

/** Calls that can share a request, with the method they take; now and then queries and mutations mixed. */
const group = fc.oneof(
  { weight: 3, arbitrary: fc.constant<{ names: string[]; method: string }>({ names: ['listPets', 'getPet'], method: 'GET' }) },
  { weight: 2, arbitrary: fc.constant<{ names: string[]; method: string }>({ names: ['createPet'], method: 'POST' }) },
  { weight: 1, arbitrary: fc.constant<{ names: string[]; method: string }>({ names: ['listPets', 'getPet', 'createPet'], method: 'GET' }) },
);

/** Mostly the method the calls take, else the other one (a query as POST is method override), now and then one tRPC takes for none. */
const methodFor = (usual: string) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant(usual) },
    { weight: 3, arbitrary: fc.constantFrom('GET', 'POST') },
    { weight: 1, arbitrary: fc.constantFrom('HEAD', 'PUT', 'DELETE', 'PATCH') },
  );

/** What a body goes with: its content type (or none) and, sometimes, an Idempotency-Key (one that is not valid too). */
const bodyHeaders = fc.record({
  'Content-Type': fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8') },
    { weight: 1, arbitrary: fc.constantFrom(undefined, 'text/plain') },
  ),
  'Idempotency-Key': fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom('wire-1', 'wire-2', 'not valid') }),
});

const withBodyHeaders = (wire: WireRequest, headers: Record<string, string | undefined>): WireRequest => {
  if (wire.body === undefined) return wire;
  const merged = { ...wire.headers, ...headers };
  return { ...wire, headers: Object.fromEntries(Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined)) };
};

const singles = group.chain(({ names, method }) =>
  fc.tuple(methodFor(method), callOf(names)).map(([verb, { name, input }]) => single(verb, name, input)),
);

const batches = group.chain(({ names, method }) =>
  fc
    .tuple(methodFor(method), fc.array(callOf(names), { minLength: 1, maxLength: 4 }), fc.boolean())
    .map(([verb, calls, streamed]) =>
      batch(verb, calls.map((each) => each.name), Object.fromEntries(calls.map((each, index) => [index, each.input])), streamed ? STREAM : {}),
    ),
);

const calls = (name: string, count: number) => Array.from({ length: count }, () => name);
const byIndex = (count: number, input: unknown) => Object.fromEntries(Array.from({ length: count }, (_, index) => [index, input]));

/**
 * What no link sends: input that is not JSON, a batch input that is no object, 50 and 51 calls,
 * bad percent-encoding, several procedures without `batch=1`, a streamed call that is no batch,
 * the bare prefix. Picked as a group, then one of it.
 */
const edges = fc.constantFrom<WireRequest[]>(
  [{ method: 'GET', path: '/trpc/listPets?input=%7B' }, { method: 'POST', path: '/trpc/createPet', headers: { 'Content-Type': 'application/json' }, body: '{' }],
  [{ method: 'GET', path: '/trpc/listPets,getPet?batch=1&input=%7B' }, { method: 'POST', path: '/trpc/createPet,createPet?batch=1', headers: { 'Content-Type': 'application/json' }, body: '{"0":' }],
  ...[[{ limit: 1 }], 7, 'text'].map((input) => [batch('GET', ['listPets', 'getPet'], input), batch('POST', ['createPet'], input), batch('GET', ['listPets'], input, STREAM)]),
  [batch('GET', calls('listPets', 50), byIndex(50, { limit: 1 })), batch('GET', calls('listPets', 50), byIndex(50, { limit: 1 }), STREAM)],
  [batch('GET', calls('listPets', 51), byIndex(51, { limit: 1 })), batch('POST', calls('createPet', 51), byIndex(51, { name: 'Rex', categoryId: 1 }))],
  [batch('GET', calls('getPet', 51), {}, STREAM)],
  [{ method: 'GET', path: '/trpc/list%ZZPets' }, { method: 'GET', path: '/trpc/listPets,%E0%A4%A?batch=1' }, { method: 'POST', path: '/trpc/create%Pet', headers: { 'Content-Type': 'application/json' }, body: '{}' }],
  [{ method: 'GET', path: '/trpc/listPets,getPet' }, single('GET', 'listPets', { limit: 1 }, STREAM)],
  [{ method: 'GET', path: '/trpc/' }, { method: 'GET', path: '/trpc' }, { method: 'POST', path: '/trpc/', headers: { 'Content-Type': 'application/json' }, body: '{}' }],
).chain((requests) => fc.constantFrom(...requests));

/** `/trpc/listPets/?…`: tRPC's adapter trims the slash. */
const withTrailingSlash = (wire: WireRequest): WireRequest => {
  const queryAt = wire.path.indexOf('?');
  return queryAt === -1 ? { ...wire, path: `${wire.path}/` } : { ...wire, path: `${wire.path.slice(0, queryAt)}/${wire.path.slice(queryAt)}` };
};

/** One request in ten gets a trailing slash. */
export const wireRequest: fc.Arbitrary<WireRequest> = fc
  .tuple(fc.oneof({ weight: 4, arbitrary: singles }, { weight: 4, arbitrary: batches }, { weight: 2, arbitrary: edges }), bodyHeaders, fc.nat(9))
  .map(([wire, headers, roll]) => {
    const sent = withBodyHeaders(wire, headers);
    return roll === 0 ? withTrailingSlash(sent) : sent;
  });
