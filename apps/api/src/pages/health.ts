import { TRPCError } from '@trpc/server';
import { errorReply } from '../exchange/error-reply.js';
import { type Exchange, logOf } from '../exchange/exchange.js';
import type { Reply } from '../exchange/reply.js';
import type { Readiness } from '../stores/open-stores.js';

/** Why `/readyz` answers 503 while the service is up: its message is the answer's. */
export class NotReadyError extends Error {}

/** Why `/readyz` answers 503 while the service sheds load. */
export class OverloadedError extends NotReadyError {
  override name = 'OverloadedError';
  constructor() {
    super('The service is overloaded and refuses new requests for now.');
  }
}

/** Why `/readyz` answers 503 once the service has been told to stop. */
export class StoppingError extends NotReadyError {
  override name = 'StoppingError';
  constructor() {
    super('The service is stopping and takes no new work.');
  }
}

/** Liveness: the process answers. */
export const healthz = (): Reply => ({ kind: 'body', status: 200, headers: [], body: JSON.stringify({ status: 'ok' }) });

/**
 * Readiness: the database answers too; a store the service can run without, Redis, is named in
 * `degraded` while it is away.
 */
export const readyz = async (exchange: Exchange, ready: () => Promise<Readiness>): Promise<Reply> => {
  try {
    const { degraded } = await ready();
    return { kind: 'body', status: 200, headers: [], body: JSON.stringify({ status: 'ok', degraded }) };
  } catch (error) {
    logOf(exchange).warn({ err: error }, 'readiness check failed');
    const message = error instanceof NotReadyError ? error.message : 'A store the service depends on is not answering.';
    return errorReply(exchange, new TRPCError({ code: 'SERVICE_UNAVAILABLE', message }));
  }
};
