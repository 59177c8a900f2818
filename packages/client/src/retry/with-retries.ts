import { backoffMs, pause, retryAfterMs } from './backoff.js';
import {
  DEFAULT_DEADLINE_MS,
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_RETRY_DELAY_MS,
  DEFAULT_TIMEOUT_MS,
  DeadlineExceededError,
  type RetryOptions,
} from './retry-options.js';

/** What ended an attempt that may be tried again: an answer that says "later", or no answer at all. */
export type Setback = { status: number; retryAfter: string | null } | { error: unknown };

/** How an attempt settled: with a value (REST's response, tRPC's result) or an error. */
export type Outcome<T> = { value: T } | { error: unknown };

/** One call as a transport makes it, for `withRetries` to run, time and try again. */
export interface Call<T> {
  /** Its name, for `onRetry` and the deadline's error. */
  name: string;
  /** May it be sent again when no answer came: a read, or a create that carries its `Idempotency-Key`. */
  repeatable: boolean;
  /** The caller's own signal: its abort ends the call, and is never retried. */
  caller: AbortSignal | undefined;
  /** Sends the call once, abandoned when `signal` aborts; `last` when no retry can follow. */
  attempt(signal: AbortSignal, last: boolean): Promise<T>;
  /** What in a settled attempt says "try again"; undefined when the outcome is final. */
  setbackOf(outcome: Outcome<T>): Setback | undefined;
  /** Lets go of an answer that will not be used (its body), before the wait. */
  discard?(value: T): Promise<void>;
}

const NEVER = new AbortController().signal;

const settle = <T>(outcome: Outcome<T>): T => {
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
};

/**
 * Runs one attempt, bounded by `ms`: then its signal aborts with `expired`. The signal is a
 * controller of its own, held here until the attempt settles, and the caller's abort is handed to
 * it by a listener: nothing that ends the attempt depends on an object the garbage collector may
 * take (docs/decisions/2026-11-29-client-timeout-and-the-garbage-collector.md).
 */
const attemptWithin = async <T>(call: Call<T>, ms: number, expired: Error, last: boolean): Promise<Outcome<T> & { expired: boolean }> => {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort(expired);
  }, ms);
  const handOn = () => {
    controller.abort(call.caller?.reason);
  };
  call.caller?.addEventListener('abort', handOn, { once: true });
  try {
    return { value: await call.attempt(controller.signal, last), expired: false };
  } catch (error) {
    return { error, expired: controller.signal.reason === expired };
  } finally {
    clearTimeout(timer);
    call.caller?.removeEventListener('abort', handOn);
  }
};

/**
 * The one retry policy of both clients, whatever carries the call. An answer that says "later"
 * (429, 503) is retried after what its `Retry-After` asks, or after backoff when it names no time;
 * no answer at all (a network error, an attempt past `timeoutMs`) only when the call is
 * repeatable. Every other outcome is final. The call ends with its last outcome as it came when no
 * retry is left, when `Retry-After` asks for more than `maxRetryDelayMs`, or when the wait would
 * pass `deadlineMs`; an attempt still running at the deadline is abandoned with a
 * `DeadlineExceededError`.
 */
export const withRetries = async <T>(options: RetryOptions, call: Call<T>): Promise<T> => {
  const {
    maxRetries = DEFAULT_MAX_RETRIES,
    timeoutMs = DEFAULT_TIMEOUT_MS,
    deadlineMs = DEFAULT_DEADLINE_MS,
    maxRetryDelayMs = DEFAULT_MAX_RETRY_DELAY_MS,
    onRetry,
  } = options;
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  for (let attempt = 1; ; attempt += 1) {
    if (call.caller?.aborted) throw call.caller.reason;
    const left = Math.max(0, deadlineMs - elapsed());
    const atDeadline = left <= timeoutMs;
    const expired = atDeadline
      ? new DeadlineExceededError(call.name, deadlineMs, attempt)
      : new DOMException(`${call.name}: attempt ${String(attempt)} took longer than ${String(timeoutMs)} ms`, 'TimeoutError');
    const last = attempt > maxRetries;
    const { expired: timedOut, ...outcome } = await attemptWithin(call, atDeadline ? left : timeoutMs, expired, last);
    if (call.caller?.aborted) return settle(outcome);
    if (timedOut && atDeadline) throw expired;
    const setback = timedOut ? { error: expired } : call.setbackOf(outcome);
    if (setback === undefined || last) return settle(outcome);
    if ('error' in setback && !call.repeatable) return settle(outcome);
    const asked = 'status' in setback ? retryAfterMs(setback.retryAfter) : undefined;
    if (asked !== undefined && asked > maxRetryDelayMs) return settle(outcome);
    const delayMs = asked ?? Math.min(backoffMs(attempt - 1), maxRetryDelayMs);
    if (elapsed() + delayMs >= deadlineMs) return settle(outcome);
    onRetry?.({ call: call.name, attempt, delayMs, ...setbackForEvent(setback) });
    if ('value' in outcome) await call.discard?.(outcome.value);
    await pause(delayMs, call.caller ?? NEVER);
  }
};

const setbackForEvent = (setback: Setback) => ('status' in setback ? { status: setback.status } : { error: setback.error });
