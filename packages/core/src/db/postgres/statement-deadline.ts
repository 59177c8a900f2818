import { Socket, connect } from 'node:net';
import type pg from 'pg';
import { STALLED_MESSAGE } from '../../storage/storage-unavailable.js';

/** pg's own fields, untyped in @types/pg: false from a statement's dispatch until the server is ready again, and the key a cancel names. */
type Watched = pg.Client & { readyForQuery?: boolean; processID?: number | null; secretKey?: number | null };

/** PostgreSQL's CancelRequest code (protocol 3.0, "CancelRequest"). */
const CANCEL_REQUEST_CODE = 80_877_102;

/**
 * Asks the server `client` is connected to (PostgreSQL, or a pooler, which passes it on to the
 * server connection running the client's statement) to cancel that statement, on a connection of
 * its own, as libpq's PQcancel does. The statement then fails with 57014, which is a 503.
 */
const sendCancel = (client: Watched, giveUpMs: number): void => {
  if (client.processID == null || client.secretKey == null) return;
  const request = Buffer.alloc(16);
  request.writeInt32BE(16, 0);
  request.writeInt32BE(CANCEL_REQUEST_CODE, 4);
  request.writeInt32BE(client.processID, 8);
  request.writeInt32BE(client.secretKey, 12);
  const address = client.host.startsWith('/') ? { path: `${client.host}/.s.PGSQL.${String(client.port)}` } : { host: client.host, port: client.port };
  // The server closes the connection once it has the request; closing it first races a pooler,
  // which drops a cancel whose client left before it was passed on (PgBouncer 1.18 does).
  const socket = connect(address, () => socket.write(request));
  socket.setTimeout(giveUpMs, () => socket.destroy());
  // A cancel that cannot be delivered leaves the statement to the stall bound.
  socket.on('error', () => undefined);
};

export interface StatementDeadline {
  /** How long a statement may run: past it, it is cancelled. */
  statementMs: number;
  /** How long after the cancel an answer may take before the network counts as stalled and the connection is ended. */
  stallMarginMs: number;
}

/**
 * Holds the statements on `client`'s connection to `statementMs` from the client's side, so the
 * bound holds wherever the connection goes: directly to PostgreSQL, or through a pooler that
 * refuses `statement_timeout` as a startup parameter and hands each transaction to another server
 * connection, where a session's `SET` would not follow (docs/decisions/2026-11-28-postgres-as-fleets-run-it.md). When a
 * statement is in flight and the connection has carried no byte either way for `statementMs`,
 * the statement is cancelled, as the server's `statement_timeout` would cancel it; when not even
 * the cancel brings an answer within `stallMarginMs`, the network is stalled and the connection
 * is ended, failing what it carries. One idle timer per socket, refreshed by its own traffic:
 * nothing runs per statement, where pg's `query_timeout` arms a timer per query that holds the
 * query and its rows (docs/decisions/2026-11-24-postgres-stalls-without-a-timer-per-query.md).
 * A connection with nothing in flight (idle, or between two statements of a transaction) may stay
 * silent.
 */
export const holdStatementsTo = (client: pg.Client, { statementMs, stallMarginMs }: StatementDeadline): void => {
  const socket = client.connection.stream;
  if (!(socket instanceof Socket)) return;
  const watched = client as Watched;
  socket.setTimeout(statementMs);
  socket.on('timeout', () => {
    if (watched.readyForQuery !== false) return;
    const heard = socket.bytesRead;
    sendCancel(watched, stallMarginMs);
    // Only on this rare path: a timer of its own, which traffic in the meantime makes moot.
    setTimeout(() => {
      if (socket.bytesRead === heard && watched.readyForQuery === false) socket.destroy(new Error(STALLED_MESSAGE));
    }, stallMarginMs).unref();
  });
};
