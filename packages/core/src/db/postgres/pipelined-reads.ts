import type { Socket } from 'node:net';
import pg from 'pg';
import { type StatementDeadline, holdStatementsTo } from './statement-deadline.js';
import { nameStatementsWhereKept } from './statement-names.js';

/** How the reads' connections show in `pg_stat_activity`. */
export const READS_APPLICATION_NAME = 'petstore-reads';

/**
 * How long a slot whose connection the server refused waits before it tries again, while its reads
 * go to the slots that have one: a database out of connections starts a process for every attempt
 * it refuses, and each read would otherwise make one.
 */
const RETRY_REFUSED_MS = 1_000;

export interface PipelinedReadsOptions {
  /** The pool's own settings: address, connect timeout, type parsers. */
  config: pg.ClientConfig;
  /** How many connections the reads share. */
  connections: number;
  /** How long a statement may run, and then how long its cancel may take before the connection is ended. */
  deadline: StatementDeadline;
  /** Told when a connection breaks; the next read opens a new one. */
  onConnectionError: (error: Error) => void;
}

export interface PipelinedReads {
  /** Sends one statement on one of the connections, behind whatever that connection already carries. */
  query: pg.Pool['query'];
  /** Settles once each connection opened at the start has opened or failed to: the failures, if any. */
  opened: Promise<unknown[]>;
  close(): Promise<void>;
}

/**
 * A statement's result with its rows in an array of its own, and pg's emptied. pg makes its result
 * when the statement is sent; on a pipelined connection it waits behind others, and V8 moves it to
 * the old generation, or, having seen many do so, allocates it there. Rows held from an old object
 * outlive every young collection until the next full one, so pages' rows filled the old generation
 * (docs/decisions/2026-11-30-a-pipelined-read-hands-its-rows-over.md).
 */
const ownRows = (result: pg.QueryResult): pg.QueryResult => {
  const rows = result.rows.slice();
  result.rows.length = 0;
  return { command: result.command, rowCount: result.rowCount, oid: result.oid, fields: result.fields, rows };
};

/** The socket pg writes a connection's messages to. */
const socketOf = (client: pg.Client): Socket => (client as unknown as { connection: { stream: Socket } }).connection.stream;

/**
 * Reads of one statement each (an animal by id, a page) on a few connections in pg's pipeline
 * mode: a statement is written as soon as it is asked for, without waiting for the ones before it
 * on the same connection to be answered, and answers that arrive together are read together. A
 * pool lends a connection to one statement at a time, so under load most reads wait in its queue
 * and each costs its own write, read and wake-up (docs/decisions/2026-11-26-postgres-reads-pipelined.md). Writes and
 * transactions stay on the pool: a transaction cannot share its connection. Each statement is its
 * own transaction, ended by its Sync, so a pooler in transaction mode may run each on another
 * server connection and still answers them in order (PgBouncer 1.18, tested).
 *
 * The connections are opened at once. One that breaks fails the statements it carries (a 503 each,
 * storage-unavailable.ts), and the next read on its slot opens a new one; a connection that cannot
 * be opened fails the reads that waited for it. While a slot has no connection and another has,
 * its reads go there, and it tries again at most once every RETRY_REFUSED_MS.
 */
export const openPipelinedReads = ({ config, connections, deadline, onConnectionError }: PipelinedReadsOptions): PipelinedReads => {
  /** Per slot: its connection once open, or the promise of it while it opens. */
  const ready: (pg.Client | undefined)[] = [];
  const opening: (Promise<pg.Client> | undefined)[] = [];
  /** Per slot: when it may try to open a connection again after one failed to open. */
  const retryAt: number[] = [];
  const open = new Set<pg.Client>();
  let next = 0;
  let closed = false;

  const connect = (slot: number): Promise<pg.Client> => {
    const client = new pg.Client({ ...config, application_name: READS_APPLICATION_NAME, pipeline: true });
    const forget = () => {
      open.delete(client);
      if (ready[slot] === client) ready[slot] = undefined;
      if (opening[slot] === connecting) opening[slot] = undefined;
    };
    client.on('error', (error) => {
      forget();
      onConnectionError(error);
    });
    client.on('end', forget);
    open.add(client);
    const connecting = client.connect().then(
      async () => {
        holdStatementsTo(client, deadline);
        await nameStatementsWhereKept(client);
        if (opening[slot] === connecting) ready[slot] = client;
        return client;
      },
      (error: unknown) => {
        forget();
        retryAt[slot] = Date.now() + RETRY_REFUSED_MS;
        throw error;
      },
    );
    opening[slot] = connecting;
    return connecting;
  };

  /**
   * The connections whose statements are held in their socket until every request the event loop
   * has read this turn has asked for its own, then written together: pg writes each statement with
   * a system call of its own, which cost a tenth of the service's time on a page of 100.
   */
  const held = new Set<pg.Client>();
  const writeHeld = () => {
    for (const client of held) socketOf(client).uncork();
    held.clear();
  };
  const send = (client: pg.Client, args: unknown[]) => {
    if (!held.has(client)) {
      if (held.size === 0) setImmediate(writeHeld);
      held.add(client);
      socketOf(client).cork();
    }
    return (client.query as (...a: unknown[]) => Promise<pg.QueryResult>)(...args).then(ownRows);
  };
  const query = ((...args: unknown[]) => {
    if (closed) return Promise.reject(new Error('Client was closed and is not queryable'));
    const slot = next;
    next = (next + 1) % connections;
    const client = ready[slot];
    if (client) return send(client, args);
    const elsewhere = ready.find((other) => other !== undefined);
    if (elsewhere) {
      if (opening[slot] === undefined && Date.now() >= (retryAt[slot] ?? 0)) connect(slot).catch(() => undefined);
      return send(elsewhere, args);
    }
    return (opening[slot] ?? connect(slot)).then((opened) => send(opened, args));
  }) as pg.Pool['query'];

  // Opened now, so that no request waits for one; one that fails is opened again by the next read.
  const opened = Promise.all(
    Array.from({ length: connections }, (_, slot) => connect(slot).then(() => undefined, (error: unknown) => error)),
  ).then((outcomes) => outcomes.filter((outcome) => outcome !== undefined));

  return {
    query,
    opened,
    close: async () => {
      closed = true;
      await Promise.allSettled([...open].map((client) => client.end()));
    },
  };
};
