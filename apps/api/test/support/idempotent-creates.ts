import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pet } from '@petstore/core';
import { Redis } from 'ioredis';
import { expect } from 'vitest';
import { nextPageLink } from '../../src/testing/index.js';
import { call } from './http.js';
import { type ServiceInstance, startInstance } from './service-instance.js';

/** The service as a child process, the way `pnpm dev` runs it. */
export type Service = ServiceInstance;
export const startService = startInstance;

/** Deletes every key the service wrote under its prefix: what a restart of a Redis that keeps nothing on disk does. */
export const flushRedisPrefix = async ({ REDIS_URL, REDIS_KEY_PREFIX }: Record<string, string>): Promise<number> => {
  if (REDIS_URL === undefined || REDIS_KEY_PREFIX === undefined) return 0;
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  let flushed = 0;
  try {
    await redis.connect();
    for await (const batch of redis.scanStream({ match: `${REDIS_KEY_PREFIX}*`, count: 500 })) {
      const keys = batch as string[];
      if (keys.length > 0) flushed += await redis.unlink(...keys);
    }
  } finally {
    redis.disconnect();
  }
  return flushed;
};

export interface Create {
  idempotencyKey: string;
  /** Unique per key, so every stored animal names the key that created it. */
  body: { name: string; categoryId: number; status: 'available' | 'pending' | 'sold' };
}

const createFor = (run: string, index: number): Create => ({
  idempotencyKey: `${run}-${index}`,
  body: { name: `${run} ${index}`, categoryId: 1 + (index % 9), status: index % 2 ? 'sold' : 'pending' },
});

/** One POST over a raw socket: undefined when the connection died before a whole answer came. */
const post = (agent: Agent, url: string, apiKey: string, { idempotencyKey, body }: Create) =>
  new Promise<{ status: number; body: string } | undefined>((resolve) => {
    const req = request(
      `${url}/v1/pets`,
      {
        method: 'POST',
        agent,
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body: text });
        });
        res.on('error', () => {
          resolve(undefined);
        });
      },
    );
    req.on('error', () => {
      resolve(undefined);
    });
    req.end(JSON.stringify(body));
  });

export interface Load {
  /** Starts every key and every animal's name. */
  run: string;
  sent: Create[];
  /** Answered 201, by idempotency key. */
  acknowledged: Map<string, Pet>;
  /** Sent, with no answer: cut off by the kill. */
  unanswered: Create[];
  /** Answered with anything but 201: none is expected. */
  refused: { create: Create; status: number; body: string }[];
}

/**
 * `clients` clients each send creates with distinct keys, one after another, spread over `urls`.
 * Once `killAfter` are acknowledged, `kill` runs (once) after a random pause of up to 10 ms, so
 * that it lands anywhere in a create's course, from its transaction to its answer; from then no
 * client sends another, and requests in flight end as they may. `midway` runs once half that
 * many are acknowledged.
 */
export const createUntilKilled = async ({
  run,
  urls,
  apiKey,
  clients,
  killAfter,
  kill,
  midway = async () => undefined,
}: {
  run: string;
  urls: string[];
  apiKey: string;
  clients: number;
  killAfter: number;
  kill: () => Promise<void>;
  midway?: () => Promise<unknown>;
}): Promise<Load> => {
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const load: Load = { run, sent: [], acknowledged: new Map(), unanswered: [], refused: [] };
  let killing: Promise<void> | undefined;
  let killed = false;
  let halfway: Promise<unknown> | undefined;
  const client = async () => {
    while (!killed) {
      const index = load.sent.length;
      const create = createFor(run, index);
      load.sent.push(create);
      const answer = await post(agent, urls[index % urls.length] ?? '', apiKey, create);
      if (answer === undefined) load.unanswered.push(create);
      else if (answer.status === 201) load.acknowledged.set(create.idempotencyKey, JSON.parse(answer.body) as Pet);
      else load.refused.push({ create, ...answer });
      if (load.acknowledged.size >= killAfter / 2) halfway ??= midway();
      killing ??=
        load.acknowledged.size >= killAfter
          ? sleep(Math.random() * 10).then(() => {
              killed = true;
              return kill();
            })
          : undefined;
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  await Promise.all([killing, halfway]);
  agent.destroy();
  return load;
};

/** Every animal, walking the pages. */
export const allPets = async (server: { url: string; apiKey: string }): Promise<Pet[]> => {
  const pets: Pet[] = [];
  let next: string | undefined = '/v1/pets?limit=100';
  while (next) {
    const response = await call(server, next);
    pets.push(...((await response.json()) as Pet[]));
    next = nextPageLink(response);
  }
  return pets;
};

export interface Retried {
  create: Create;
  status: number;
  pet: Pet;
  replayed: boolean;
}

/** Sends each create again, with its key and body, a few at a time. */
export const retry = async (server: { url: string; apiKey: string }, creates: Create[], concurrency = 8): Promise<Retried[]> => {
  const results: Retried[] = [];
  const queue = [...creates];
  const worker = async () => {
    for (let create = queue.shift(); create; create = queue.shift()) {
      const response = await call(server, '/v1/pets', { method: 'POST', json: create.body, headers: { 'Idempotency-Key': create.idempotencyKey } });
      results.push({ create, status: response.status, pet: (await response.json()) as Pet, replayed: response.headers.get('idempotent-replayed') === 'true' });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
};

export interface CrashFigures {
  keysSent: number;
  acknowledged: number;
  retried: number;
  /** Retries answered from a record: the kill came after the commit, before the answer. */
  replayedOnRetry: number;
  createdOnRetry: number;
  animalsStored: number;
  duplicates: number;
}

/**
 * Retries every unanswered create, and every acknowledged one, on `server`; then checks that each
 * key names exactly one animal, every acknowledged animal is stored as it was answered, and
 * nothing else was added to the `before` animals stored ahead of the load.
 */
export const retryAndCheck = async (server: { url: string; apiKey: string }, load: Load, before: number): Promise<CrashFigures> => {
  expect(load.refused).toEqual([]);
  const retriedUnanswered = await retry(server, load.unanswered);
  const retriedAcknowledged = await retry(server, load.sent.filter((create) => load.acknowledged.has(create.idempotencyKey)));
  const everything = await allPets(server);
  const stored = everything.filter((pet) => pet.name.startsWith(`${load.run} `));
  expect(everything.length - stored.length).toBe(before);

  for (const { create, status, pet } of [...retriedUnanswered, ...retriedAcknowledged]) {
    expect({ key: create.idempotencyKey, status, name: pet.name }).toEqual({ key: create.idempotencyKey, status: 201, name: create.body.name });
  }
  // A retry of an acknowledged create answers with the very animal first answered, as a replay.
  for (const { create, pet, replayed } of retriedAcknowledged) {
    expect({ pet, replayed }).toEqual({ pet: load.acknowledged.get(create.idempotencyKey), replayed: true });
  }
  const storedById = new Map(stored.map((pet) => [pet.id, pet]));
  const lost = [...load.acknowledged.values()].filter((pet) => JSON.stringify(storedById.get(pet.id)) !== JSON.stringify(pet));
  expect(lost).toEqual([]);
  const byName = new Map<string, Pet[]>();
  for (const pet of stored) byName.set(pet.name, [...(byName.get(pet.name) ?? []), pet]);
  const duplicated = [...byName.entries()].filter(([, pets]) => pets.length > 1).map(([name]) => name);
  expect(duplicated).toEqual([]);
  expect([...byName.keys()].sort()).toEqual(load.sent.map((create) => create.body.name).sort());
  // The retry's animal is the one stored under that key.
  for (const { create, pet } of retriedUnanswered) expect(byName.get(create.body.name)).toEqual([pet]);

  const replayedOnRetry = retriedUnanswered.filter((result) => result.replayed).length;
  return {
    keysSent: load.sent.length,
    acknowledged: load.acknowledged.size,
    retried: retriedUnanswered.length,
    replayedOnRetry,
    createdOnRetry: retriedUnanswered.length - replayedOnRetry,
    animalsStored: stored.length,
    duplicates: stored.length - byName.size,
  };
};

export const describeFigures = (figures: CrashFigures) =>
  `keys sent ${figures.keysSent}, acknowledged ${figures.acknowledged}, retried ${figures.retried} ` +
  `(${figures.replayedOnRetry} replayed: committed before the kill; ${figures.createdOnRetry} created), ` +
  `animals stored ${figures.animalsStored}, duplicates ${figures.duplicates}`;
