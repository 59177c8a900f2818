import { type ClientRequest, request } from 'node:http';
import { jsonlStreamConsumer } from '@trpc/server/unstable-core-do-not-import';
import pg from 'pg';
import { pino } from 'pino';
import { describe, expect } from 'vitest';
import { TEST_ENGINE, it } from '../src/testing/index.js';

/**
 * A streamed batch (httpBatchStreamLink's JSON lines) as it goes over the wire: each call's line is
 * written when that call is answered, so a slow call does not hold back a fast one, and a client
 * that leaves stops the stream without an error. The slow call is held for real: a create waits for
 * a lock this test takes on the pets table in PostgreSQL.
 */

/** A streamed batch of creates as httpBatchStreamLink sends it, answered line by line as it arrives. */
const streamCreates = (url: string, key: string, inputs: unknown[]) => {
  const lines: { line: string; at: number }[] = [];
  let req: ClientRequest | undefined;
  const ended = new Promise<number>((resolve, reject) => {
    req = request(
      `${url}/trpc/${inputs.map(() => 'createPet').join(',')}?batch=1`,
      { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'trpc-accept': 'application/jsonl' } },
      (res) => {
        let pending = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          pending += chunk;
          for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n')) {
            lines.push({ line: pending.slice(0, end), at: Date.now() });
            pending = pending.slice(end + 1);
          }
        });
        res.on('end', () => {
          resolve(res.statusCode ?? 0);
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(Object.fromEntries(inputs.map((input, index) => [index, input]))));
  });
  return { lines, ended, leave: () => req?.destroy() };
};

/** Resolves once `lines` holds `count` lines, or fails after `ms`. */
const linesArrive = async (lines: unknown[], count: number, ms = 10_000) => {
  await expect.poll(() => lines.length, { timeout: ms }).toBeGreaterThanOrEqual(count);
};

/** The lines as httpBatchStreamLink decodes them: each call's envelope, in order. */
const decoded = async (lines: { line: string }[]) => {
  const from = new Response(lines.map(({ line }) => `${line}\n`).join('')).body;
  if (!from) throw new Error('no lines');
  const [head] = await jsonlStreamConsumer<Record<string, unknown>>({ from, abortController: new AbortController() });
  return Promise.all(Object.keys(head).map(async (key) => (await Promise.resolve(head[key])) as { result?: { data: unknown }; error?: { data: { code: string } } }));
};

/** Holds every insert into pets (reads go on) until `release`: a transaction holding an EXCLUSIVE lock. */
const holdInserts = async (databaseUrl: string) => {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('begin');
  await client.query('lock table pets in exclusive mode');
  return {
    release: async () => {
      await client.query('commit');
      await client.end();
    },
  };
};

const VALID = { name: 'Slow', categoryId: 1 };
const INVALID = { name: '', categoryId: 1 };

describe.runIf(TEST_ENGINE === 'postgres')('a streamed batch over the wire, with a create held in PostgreSQL', () => {
  it("writes a fast call's answer while a slow one waits, and the slow one's when it is answered", async ({ startServer }) => {
    const server = await startServer();
    const held = await holdInserts(server.storageEnv.DATABASE_URL ?? '');
    const stream = streamCreates(server.url, server.apiKey, [VALID, INVALID]);
    try {
      // The head: the invalid create is answered in it; the held one is still a promise.
      await linesArrive(stream.lines, 1);
      const [head] = stream.lines.map(({ line }) => JSON.parse(line) as Record<string, unknown[]>);
      expect(head?.['1']).toEqual([[expect.objectContaining({ error: expect.objectContaining({ data: expect.objectContaining({ code: 'BAD_REQUEST' }) }) })]]);
      expect(head?.['0']).toEqual([[0], [null, 0, 0]]);
      // Held for real: nothing more comes while the lock is held.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(stream.lines).toHaveLength(1);
    } finally {
      await held.release();
    }
    expect(await stream.ended).toBe(200);
    expect(stream.lines).toHaveLength(2);
    const [slow, fast] = await decoded(stream.lines);
    expect(slow?.result?.data).toEqual({ id: expect.any(Number), ...VALID, status: 'available' });
    expect(fast?.error?.data.code).toBe('BAD_REQUEST');
  });

  it('stops the work a stream still had pending when its client leaves, without an error in the log, and serves on', async ({ startServer }) => {
    const lines: Record<string, unknown>[] = [];
    const server = await startServer({}, pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) }));
    const held = await holdInserts(server.storageEnv.DATABASE_URL ?? '');
    // The first create is in the database, waiting for the lock; the second waits behind it, in
    // the service, for the next group of creates, and its client leaves.
    const stays = streamCreates(server.url, server.apiKey, [{ name: 'Stays', categoryId: 1 }]);
    await linesArrive(stays.lines, 1);
    const leaves = streamCreates(server.url, server.apiKey, [{ name: 'Leaves', categoryId: 1 }, INVALID]);
    try {
      await linesArrive(leaves.lines, 1);
      leaves.leave();
      await leaves.ended.catch(() => undefined);
    } finally {
      await held.release();
    }
    expect(await stays.ended).toBe(200);
    const listed = async () => ((await (await fetch(`${server.url}/v1/pets`, { headers: { Authorization: `Bearer ${server.apiKey}` } })).json()) as { name: string }[]).map(({ name }) => name);
    // The create that was already in the database ends; the one its client left never starts.
    expect(await listed()).toEqual(['Stays']);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await listed()).toEqual(['Stays']);
    const access = lines.filter((line) => (line.req as { url?: string } | undefined)?.url?.startsWith('/trpc/createPet'));
    expect(access).toHaveLength(2);
    expect(lines.filter((line) => (line.level as number) >= 50)).toEqual([]);
  });
});
