import { once } from 'node:events';
import { type AddressInfo, connect, createServer } from 'node:net';
import pg from 'pg';
import { describe, expect, vi } from 'vitest';
import type { Pet } from '../../pets/pet.js';
import { it } from '../../testing/fixtures.js';
import { isStorageUnavailable } from '../../storage/storage-unavailable.js';
import { openPostgresDatabase } from './open-postgres-database.js';
import { DEFAULT_CONNECTION_BUDGET } from '../../storage/connection-budget.js';
import { READS_APPLICATION_NAME, openPipelinedReads } from './pipelined-reads.js';

const READ_CONNECTIONS = DEFAULT_CONNECTION_BUDGET.reads;

/** Connections to `url`'s database the reads hold now, as PostgreSQL sees them. */
const readConnections = async (url: string) => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ pid: number }>(
    'select pid from pg_stat_activity where datname = current_database() and application_name = $1',
    [READS_APPLICATION_NAME],
  );
  await client.end();
  return rows;
};

const terminate = async (url: string, pids: number[]) => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('select pg_terminate_backend(pid) from unnest($1::int[]) as pid', [pids]);
  await client.end();
};

describe('PostgreSQL reads on pipelined connections', () => {
  it('answer many reads at once, each with its own rows, on no more than their own connections', async ({ scratchPostgres: { url } }) => {
    const db = await openPostgresDatabase(url, { connections: { pool: 2 } });
    const created: Pet[] = [];
    for (let index = 0; index < 40; index++) created.push(await db.pets.insert({ name: `pet ${String(index)}`, categoryId: index, status: 'available' }));
    // 200 reads in one turn: more than the pool could lend connections to, all in flight together.
    const reading = Promise.all(
      Array.from({ length: 200 }, (_, index) => {
        const pet = created[index % created.length];
        if (!pet) throw new Error('no pet');
        return Promise.resolve(index % 2 === 0 ? db.pets.findById(pet.id) : db.pets.page({ afterId: pet.id - 1, take: 2 }));
      }),
    );
    // None waits for the pool.
    expect(db.poolUse?.()).toMatchObject({ waiting: 0 });
    const reads = await reading;
    reads.forEach((read, index) => {
      const pet = created[index % created.length];
      if (index % 2 === 0) expect(read).toEqual(pet);
      else expect((read as unknown[])[0]).toEqual(pet);
    });
    expect((await readConnections(url)).length).toBe(READ_CONNECTIONS);
    await db.close();
    expect(await readConnections(url)).toEqual([]);
  });

  it('fail the reads a broken connection carried as unavailable, and open a new one for the next', async ({ scratchPostgres: { url } }) => {
    const db = await openPostgresDatabase(url, { connections: { pool: 2 } });
    const rex = await db.pets.insert({ name: 'Rex', categoryId: 1, status: 'sold' });
    await Promise.all(Array.from({ length: READ_CONNECTIONS }, async () => db.pets.findById(rex.id)));
    const before = await readConnections(url);
    await terminate(url, before.map(({ pid }) => pid));
    // The reads a connection carried when it ended fail as a 503 would.
    const after = await Promise.allSettled(Array.from({ length: READ_CONNECTIONS * 2 }, async () => db.pets.findById(rex.id)));
    for (const outcome of after) if (outcome.status === 'rejected') expect(isStorageUnavailable(outcome.reason)).toBe(true);
    // Once each has learned of its end (the server's notice comes just before the socket closes), its slot opens a new one.
    await vi.waitFor(
      async () => {
        const again = await Promise.all(Array.from({ length: READ_CONNECTIONS }, async () => db.pets.findById(rex.id)));
        expect(again).toEqual(Array.from({ length: READ_CONNECTIONS }, () => rex));
      },
      { timeout: 5_000, interval: 50 },
    );
    const reopened = await readConnections(url);
    expect(reopened.length).toBe(READ_CONNECTIONS);
    expect(reopened.map(({ pid }) => pid).filter((pid) => before.some((old) => old.pid === pid))).toEqual([]);
    await db.close();
  });

  it('fail a read as unavailable when no connection can be opened', async ({ scratchPostgres: { url } }) => {
    const unreachable = new URL(url);
    unreachable.port = '1';
    const reads = openPipelinedReads({
      config: { connectionString: unreachable.href, connectionTimeoutMillis: 1_000 },
      connections: READ_CONNECTIONS,
      deadline: { statementMs: 2_000, stallMarginMs: 1_000 },
      onConnectionError: () => undefined,
    });
    const refused = await reads.query('select 1').then(() => undefined, (error: unknown) => error);
    expect(isStorageUnavailable(refused)).toBe(true);
    await reads.close();
  });

  it('keep a failing statement to itself: the reads behind it on the same connection are answered', async ({ scratchPostgres: { url } }) => {
    // The slow statement is cancelled by the deadline, from the client's side, long before it would
    // end. The deadline is loose enough that a fresh server process's first statement on a busy
    // machine stays within it, and the sleep outlasts the deadline and the stall margin together.
    const reads = openPipelinedReads({
      config: { connectionString: url },
      connections: READ_CONNECTIONS,
      deadline: { statementMs: 2_000, stallMarginMs: 5_000 },
      onConnectionError: () => undefined,
    });
    // Every READ_CONNECTIONS-th statement shares a connection: the slow one's neighbours follow it there.
    const outcomes = await Promise.allSettled([
      reads.query('select pg_sleep(30)'),
      ...Array.from({ length: READ_CONNECTIONS * 3 }, (_, index) => reads.query('select $1::int as n', [index])),
    ]);
    const [slow, ...rest] = outcomes;
    expect(slow.status).toBe('rejected');
    if (slow.status === 'rejected') expect(isStorageUnavailable(slow.reason)).toBe(true);
    expect(rest.map((outcome): unknown => (outcome.status === 'fulfilled' ? (outcome.value.rows[0] as { n: number }).n : outcome.reason))).toEqual(
      Array.from({ length: READ_CONNECTIONS * 3 }, (_, index) => index),
    );
    await reads.close();
  });

  it('send the reads of a slot whose connection was refused to a slot that has one, without trying it again within the second', async ({ scratchPostgres: { url } }) => {
    // A proxy to the server that refuses its second connection, as a database out of connections would.
    const target = new URL(url);
    let accepted = 0;
    const proxy = createServer((socket) => {
      accepted++;
      if (accepted === 2) {
        socket.destroy();
        return;
      }
      const upstream = connect(Number(target.port || 5432), target.hostname);
      socket.pipe(upstream).pipe(socket);
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    }).listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    const proxied = new URL(url);
    proxied.port = String((proxy.address() as AddressInfo).port);
    const reads = openPipelinedReads({
      config: { connectionString: proxied.href },
      connections: 2,
      deadline: { statementMs: 2_000, stallMarginMs: 1_000 },
      onConnectionError: () => undefined,
    });
    try {
      expect(await reads.opened).toHaveLength(1);
      const answers = await Promise.all(Array.from({ length: 10 }, (_, index) => reads.query<{ n: number }>('select $1::int as n', [index])));
      expect(answers.map((answer) => answer.rows[0]?.n)).toEqual(Array.from({ length: 10 }, (_, index) => index));
      expect(accepted).toBe(2);
    } finally {
      await reads.close();
      proxy.close();
    }
  });

  it("hand each read's rows over and leave pg's result of it empty, so that nothing old keeps them", async ({ scratchPostgres: { url } }) => {
    const reads = openPipelinedReads({
      config: { connectionString: url },
      connections: 1,
      deadline: { statementMs: 2_000, stallMarginMs: 1_000 },
      onConnectionError: () => undefined,
    });
    await reads.opened;
    // pg's own answers, as its client hands them to the reads.
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    try {
      const statement = 'select n from generate_series(1, 100) as n';
      const answers = await Promise.all(Array.from({ length: 3 }, async () => reads.query<{ n: number }>(statement)));
      expect(answers.map(({ rows }) => rows.length)).toEqual([100, 100, 100]);
      // Only these reads' own: a worker runs files one after another, and another's client may still be at work.
      const ours = sent.mock.results.filter((_, index) => sent.mock.calls[index]?.[0] === statement);
      const held = await Promise.all(ours.map(async ({ value }) => ((await value) as pg.QueryResult).rows.length));
      expect(held).toEqual([0, 0, 0]);
    } finally {
      sent.mockRestore();
      await reads.close();
    }
  });
});
