import { TRPCError } from '@trpc/server';
import { errorReply } from '../http/error-reply.js';
import { type RequestContext, logOf } from '../http/request-context.js';
import type { Reply } from '../http/reply.js';
import type { Readiness } from '../stores/open-stores.js';
import { VERSION } from '../settings/version.js';

/** Why `/readyz` answers 503 while the service is up: its message is the answer's. */
class NotReadyError extends Error {}

/** Why `/readyz` answers 503 once the service has been told to stop. */
export class StoppingError extends NotReadyError {
  override name = 'StoppingError';
  constructor() {
    super('The service is stopping and takes no new work.');
  }
}

/** Liveness: the process answers, and says which version it runs (a rolling update's progress, read from outside). */
const LIVE = JSON.stringify({ status: 'ok', version: VERSION });
export const healthz = (): Reply => ({ kind: 'body', status: 200, headers: [], body: LIVE });

/** What a readiness log line says of why: the cause's kind, code and message, never its stack. */
const causeOf = (error: unknown) =>
  error instanceof Error ? { type: error.name, code: (error as { code?: unknown }).code, message: error.message } : { message: String(error) };

/**
 * Readiness: the database answers too; a store the service can run without, Redis, is named in
 * `degraded` while it is away. A load balancer asks every few seconds, and a flood of requests may
 * ask hundreds of times a second: each change (ready, not ready, and why) is logged once, not each answer.
 */
export const createReadyz = (ready: () => Promise<Readiness>) => {
  let failing: string | undefined;
  return async (context: RequestContext): Promise<Reply> => {
    try {
      const { degraded } = await ready();
      if (failing !== undefined) {
        failing = undefined;
        logOf(context).info('ready again');
      }
      return { kind: 'body', status: 200, headers: [], body: JSON.stringify({ status: 'ok', degraded }) };
    } catch (error) {
      const cause = causeOf(error);
      if (failing !== cause.message) {
        failing = cause.message;
        logOf(context).warn({ cause }, 'not ready: /readyz answers 503 until this changes');
      }
      const message = error instanceof NotReadyError ? error.message : 'A store the service depends on is not answering.';
      return errorReply(context, new TRPCError({ code: 'SERVICE_UNAVAILABLE', message }));
    }
  };
};
