import { Socket } from 'node:net';
import type pg from 'pg';

/** What a statement on a stalled connection fails with; storage-unavailable.ts reads it as a 503. */
export const STALLED_MESSAGE = 'Query read timeout: no answer from PostgreSQL';

/**
 * Ends a connection the service is using (checked out of the pool) once `silentMs` pass without a
 * byte in either direction, so a statement on a network that stalls fails instead of waiting
 * forever. The server's `statement_timeout` answers a slow statement before then, and an idle
 * pooled connection may stay silent. One idle timer per socket, refreshed by its own traffic,
 * instead of pg's `query_timeout`, which arms a timer per query that holds the query and its rows
 * (docs/decisions has what that cost).
 */
export const endStalledConnections = (pool: pg.Pool, silentMs: number): void => {
  const inUse = new WeakSet<pg.PoolClient>();
  pool.on('acquire', (client) => inUse.add(client));
  pool.on('release', (_error, client) => inUse.delete(client));
  pool.on('connect', (client) => {
    const socket = client.connection.stream;
    if (!(socket instanceof Socket)) return;
    socket.setTimeout(silentMs);
    socket.on('timeout', () => {
      if (inUse.has(client)) socket.destroy(new Error(STALLED_MESSAGE));
    });
  });
};
