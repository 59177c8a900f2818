import type { Pet } from '@petstore/core';
import { expect } from 'vitest';
import { it, nextPageLink } from '../src/testing/index.js';
import { type ServiceInstance, startInstance } from './support/service-instance.js';

// Two service processes on one PostgreSQL (this file runs in the PostgreSQL project only), 32
// writers spread over both while walkers page through the animals, and one instance killed with
// SIGKILL halfway: what several instances creating at once must never do to a walk by cursor.
const WRITERS = 32;
const WALKERS = 4;
const RUN_MS = 6_000;
const KILL_AFTER_MS = 3_000;
const PAGE = 50;

interface Acknowledged {
  id: number;
  /** When the 201 arrived: every walk that begins after it must see the animal. */
  at: number;
}

it('walks by cursor see every animal acknowledged before, ascending, with no repeat; none is lost to a SIGKILL', async ({ storage }) => {
  const instances: ServiceInstance[] = await Promise.all([0, 1].map(() => startInstance({ RATE_LIMIT_PER_MINUTE: '0', ...storage.env })));
  const key = instances.map((instance) => instance.printedKey).find((printed) => printed !== undefined) ?? '';
  const alive = [true, true];
  /** The instance of that index while it runs, else the other one. */
  const indexFor = (preferred: number) => (alive[preferred % 2] ? preferred % 2 : 0);
  const on = (preferred: number) => instances[indexFor(preferred)] as ServiceInstance;
  const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  const acknowledged: Acknowledged[] = [];
  const perInstance = [0, 0];
  let stopping = false;

  const writer = async (writerIndex: number) => {
    for (let attempt = 0; !stopping; attempt++) {
      const target = indexFor(writerIndex + attempt);
      try {
        const response = await fetch(`${on(target).url}/v1/pets`, { method: 'POST', headers, body: JSON.stringify({ name: `w${writerIndex}-${attempt}`, categoryId: 1 }) });
        if (response.status === 201) {
          acknowledged.push({ id: ((await response.json()) as Pet).id, at: performance.now() });
          perInstance[target] = (perInstance[target] ?? 0) + 1;
        }
      } catch {
        // The instance was killed under this request: it was never acknowledged.
      }
    }
  };

  /** One walk from the first page to the last, each page from either instance still alive. */
  const walk = async (walkerIndex: number) => {
    let next: string | undefined = `/v1/pets?limit=${PAGE}`;
    const seen: number[] = [];
    for (let page = 0; next; page++) {
      let response: Response | undefined;
      for (let tries = 0; !response; tries++) {
        try {
          response = await fetch(`${on(walkerIndex + page + tries).url}${next}`, { headers });
        } catch {
          // That instance was just killed; the page is asked of the other one.
        }
      }
      expect(response.status).toBe(200);
      seen.push(...((await response.json()) as Pet[]).map((pet) => pet.id));
      next = nextPageLink(response);
    }
    return seen;
  };

  const figures = { acknowledged: 0, acknowledgedByInstance: perInstance, walks: 0, gaps: 0, repeats: 0, outOfOrder: 0, lost: 0 };
  const check = (seen: number[], mustHold: Set<number>) => {
    const once = new Set(seen);
    figures.repeats += seen.length - once.size;
    figures.outOfOrder += seen.filter((id, index) => index > 0 && id <= (seen[index - 1] ?? 0)).length;
    figures.gaps += [...mustHold].filter((id) => !once.has(id)).length;
  };
  const walker = async (walkerIndex: number) => {
    while (!stopping) {
      const began = performance.now();
      const before = new Set(acknowledged.filter(({ at }) => at < began).map(({ id }) => id));
      check(await walk(walkerIndex), before);
      figures.walks += 1;
    }
  };

  const killing = new Promise<void>((resolve) => {
    setTimeout(() => {
      alive[1] = false;
      void (instances[1] as ServiceInstance).kill().then(resolve);
    }, KILL_AFTER_MS);
  });
  const stop = new Promise<void>((resolve) => {
    setTimeout(() => {
      stopping = true;
      resolve();
    }, RUN_MS);
  });
  await Promise.all([
    ...Array.from({ length: WRITERS }, (_, index) => writer(index)),
    ...Array.from({ length: WALKERS }, (_, index) => walker(index)),
    killing,
    stop,
  ]);

  // Afterwards, on the instance left: one walk holds every acknowledged animal.
  const all = await walk(0);
  const once = new Set(all);
  figures.acknowledged = acknowledged.length;
  figures.lost = acknowledged.filter(({ id }) => !once.has(id)).length;
  check(all, new Set(acknowledged.map(({ id }) => id)));
  await (instances[0] as ServiceInstance).stop();
  console.log(`multi-instance walk: ${JSON.stringify(figures)}`);

  expect(perInstance.every((count) => count > 0)).toBe(true);
  expect(figures.walks).toBeGreaterThan(WALKERS);
  expect({ gaps: figures.gaps, repeats: figures.repeats, outOfOrder: figures.outOfOrder, lost: figures.lost }).toEqual({ gaps: 0, repeats: 0, outOfOrder: 0, lost: 0 });
}, 60_000);
