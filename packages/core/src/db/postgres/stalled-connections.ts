import { Socket } from 'node:net';
import type pg from 'pg';
import { STALLED_MESSAGE } from '../../storage/storage-unavailable.js';


/** pg's own flag, false from a statement's dispatch until the server says it is ready again; untyped in @types/pg. */
type WithReadiness = pg.Client & { readyForQuery?: boolean };

/**
 * Ends `client`'s connection once a statement has had no answer for `silentMs` without a byte in
 * either direction, so a statement on a network that stalls fails instead of waiting forever. The
 * server's `statement_timeout` answers a slow statement before then, and a connection with nothing
 * in flight (idle, or between two statements of a transaction) may stay silent. One idle timer per
 * socket, refreshed by its own traffic, instead of pg's `query_timeout`, which arms a timer per
 * query that holds the query and its rows (docs/decisions has what that cost). Nothing here runs
 * per statement; the outage test stalls a connection to hold the rule.
 */
export const endWhenStalled = (client: pg.Client, silentMs: number): void => {
  const socket = client.connection.stream;
  if (!(socket instanceof Socket)) return;
  socket.setTimeout(silentMs);
  socket.on('timeout', () => {
    if ((client as WithReadiness).readyForQuery === false) socket.destroy(new Error(STALLED_MESSAGE));
  });
};

/** `endWhenStalled` for every connection the pool opens. */
export const endStalledConnections = (pool: pg.Pool, silentMs: number): void => {
  pool.on('connect', (client) => {
    endWhenStalled(client, silentMs);
  });
};
