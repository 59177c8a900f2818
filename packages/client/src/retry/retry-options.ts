/** A retry about to happen, as `onRetry` is told of it. */
export interface RetryEvent {
  /** The call: a procedure's name on tRPC (`listPets`), the method and path on REST (`GET /v1/pets`). */
  call: string;
  /** The attempt that just failed, from 1. */
  attempt: number;
  /** How long the client waits before the next attempt. */
  delayMs: number;
  /** The status that said "later" (429 or 503), when an answer came. */
  status?: number;
  /** What ended the attempt when no answer came: the network's error, or the attempt's timeout. */
  error?: unknown;
}

export interface RetryOptions {
  /** Attempts after the first one; 0 turns retrying off. */
  maxRetries?: number;
  /** How long one attempt may take, in milliseconds, before it is abandoned (and retried). */
  timeoutMs?: number;
  /** How long a call may take in all, attempts and waits together, in milliseconds. */
  deadlineMs?: number;
  /** The longest one wait may be; a `Retry-After` asking for more ends the call with the refusal at once. */
  maxRetryDelayMs?: number;
  /** Called before each wait, with what failed and how long the client will wait. */
  onRetry?: (retry: RetryEvent) => void;
}

export const DEFAULT_MAX_RETRIES = 2;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_DEADLINE_MS = 60_000;
export const DEFAULT_MAX_RETRY_DELAY_MS = 10_000;

/** Answers that say "later", not "no": the quota (429) and an overloaded or degraded service (503). */
export const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** A call that ran out of its `deadlineMs`; its cause is what ended the last attempt, when one ended. */
export class DeadlineExceededError extends Error {
  override readonly name = 'DeadlineExceededError';

  constructor(
    readonly call: string,
    readonly deadlineMs: number,
    readonly attempts: number,
    options?: ErrorOptions,
  ) {
    super(`${call}: no answer within the call's deadline of ${String(deadlineMs)} ms (${String(attempts)} attempt${attempts === 1 ? '' : 's'})`, options);
  }
}
