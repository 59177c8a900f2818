import type autocannon from 'autocannon';

export type Request = autocannon.Request;

/** One operation as each way of calling it spells it. */
export interface Scenario {
  name: string;
  rest: Request;
  trpc: Request;
  /** BATCH_SIZE calls of the operation in one HTTP request, as tRPC's batch link sends them. */
  trpcBatched: Request;
  /** The same batch as `httpBatchStreamLink` sends it: asking for the results as JSON lines. */
  trpcStreamed: Request;
}

/** How many calls a batched tRPC request carries; its calls/s are its req/s times this. */
export const BATCH_SIZE = 10;
/** The batched target's name in tables and verdicts. */
export const BATCHED = `tRPC batch of ${String(BATCH_SIZE)}`;
/** The stream-batched target's name: BATCHED's requests as `httpBatchStreamLink` sends them. */
export const STREAMED = `tRPC stream batch of ${String(BATCH_SIZE)}`;

const json = { 'content-type': 'application/json' };
const input = (value: unknown) => encodeURIComponent(JSON.stringify(value));
const batchPath = (procedure: string) => Array.from({ length: BATCH_SIZE }, () => procedure).join(',');
const batchInput = (value: (index: number) => unknown) =>
  Object.fromEntries(Array.from({ length: BATCH_SIZE }, (_, index) => [index, value(index)]));
const batchedQuery = (procedure: string, value: (index: number) => unknown) =>
  `/trpc/${batchPath(procedure)}?batch=1&input=${input(batchInput(value))}`;

/**
 * `httpBatchStreamLink` sends `httpBatchLink`'s request (queries GET `?batch=1&input=…`,
 * mutations POST with the JSON body) plus a header asking for the results as JSON lines, each
 * as soon as it is ready.
 */
const streamed = (batched: Request): Request => ({ ...batched, headers: { ...batched.headers, 'trpc-accept': 'application/jsonl' } });
const withStream = (scenario: Omit<Scenario, 'trpcStreamed'>): Scenario => ({ ...scenario, trpcStreamed: streamed(scenario.trpcBatched) });

/** Ids of seeded animals, walked in turn so reads are not all of one row. */
const rotatingId = (seeded: number) => {
  let next = 0;
  return () => (next = (next % seeded) + 1);
};

/** The cheapest call, the one whose CPU any change to the request path shows most. */
export const GET_BY_ID = 'get by id';

/** The scenario whose page of 100 animals costs more than the call around it. */
export const PAGE_OF_100 = 'list status=available limit=100';
/**
 * Whether a batch must beat REST per call in this scenario: batching saves each call's HTTP round,
 * which a page of 100 animals dwarfs, so that scenario's batch is reported, not targeted.
 */
export const batchIsTargeted = (scenario: string): boolean => scenario !== PAGE_OF_100;

export const scenarios = (seeded: number): Scenario[] => {
  const newPet = { name: 'Bench', categoryId: 7 };
  const getId = rotatingId(seeded);
  const spelled: Omit<Scenario, 'trpcStreamed'>[] = [
    {
      name: 'list limit=20',
      rest: { method: 'GET', path: '/v1/pets?limit=20' },
      trpc: { method: 'GET', path: `/trpc/listPets?input=${input({ limit: 20 })}` },
      trpcBatched: { method: 'GET', path: batchedQuery('listPets', () => ({ limit: 20 })) },
    },
    {
      name: PAGE_OF_100,
      rest: { method: 'GET', path: '/v1/pets?status=available&limit=100' },
      trpc: { method: 'GET', path: `/trpc/listPets?input=${input({ status: 'available', limit: 100 })}` },
      trpcBatched: { method: 'GET', path: batchedQuery('listPets', () => ({ status: 'available', limit: 100 })) },
    },
    {
      name: 'create',
      rest: { method: 'POST', path: '/v1/pets', headers: json, body: JSON.stringify(newPet) },
      trpc: { method: 'POST', path: '/trpc/createPet', headers: json, body: JSON.stringify(newPet) },
      trpcBatched: {
        method: 'POST',
        path: `/trpc/${batchPath('createPet')}?batch=1`,
        headers: json,
        body: JSON.stringify(batchInput(() => newPet)),
      },
    },
    {
      name: GET_BY_ID,
      rest: { method: 'GET', setupRequest: (request) => ({ ...request, path: `/v1/pets/${getId()}` }) },
      trpc: { method: 'GET', setupRequest: (request) => ({ ...request, path: `/trpc/getPet?input=${input({ petId: getId() })}` }) },
      trpcBatched: {
        method: 'GET',
        setupRequest: (request) => ({ ...request, path: batchedQuery('getPet', () => ({ petId: getId() })) }),
      },
    },
  ];
  return spelled.map(withStream);
};
