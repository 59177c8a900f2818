import { type Operation, type OperationLink, type OperationResultEnvelope, TRPCClientError, type TRPCLink } from '@trpc/client';
import type { AnyRouter } from '@trpc/server';
import { observable } from '@trpc/server/observable';
import type { AppRouter } from '../generated/router-types.js';
import { UnexpectedResponseError } from './unexpected-response.js';
import { RETRIED_STATUSES, type RetryOptions } from './retry-options.js';
import { type Outcome, type Setback, withRetries } from './with-retries.js';

type Result = OperationResultEnvelope<unknown, TRPCClientError<AppRouter>>;

/** The `Idempotency-Key` a create carries on every attempt, made once per call; undefined for a query. */
export const idempotencyKeyOf = (op: Pick<Operation, 'context'>): string | undefined => {
  const key = op.context.idempotencyKey;
  return typeof key === 'string' ? key : undefined;
};

/**
 * What in a failed call says "later". The service's refusal carries its status in the error's
 * `data`, whatever the link: an HTTP status (httpLink, httpBatchLink) or inside a stream answered
 * 200 (httpBatchStreamLink); its `Retry-After` is on the response either way. A proxy's own
 * refusal, not in tRPC's envelope, arrives as an UnexpectedResponseError. No response at all is a
 * setback only the repeatable may retry.
 */
const setbackOf = (outcome: Outcome<Result>): Setback | undefined => {
  if (!('error' in outcome)) return undefined;
  const { error } = outcome;
  if (!(error instanceof TRPCClientError)) return { error };
  const unexpected = error.cause instanceof UnexpectedResponseError ? error.cause.response : undefined;
  const response = (error.meta?.response as Response | undefined) ?? unexpected;
  const status = (error.data as { httpStatus?: unknown } | undefined)?.httpStatus ?? unexpected?.status;
  if (typeof status !== 'number') return error.shape === undefined ? { error } : undefined;
  return RETRIED_STATUSES.has(status) ? { status, retryAfter: response?.headers.get('retry-after') ?? null } : undefined;
};

/** One attempt through the rest of the chain, as a promise: abandoned (and its request aborted) when `signal` aborts. */
const attemptThrough = (next: Parameters<OperationLink<AnyRouter>>[0]['next'], op: Operation, signal: AbortSignal) =>
  new Promise<Result>((resolve, reject) => {
    let result: Result | undefined;
    const subscription = next({ ...op, signal }).subscribe({
      next: (envelope) => {
        result = envelope as Result;
      },
      error: reject,
      complete: () => {
        if (result === undefined) reject(new TRPCClientError(`${op.path}: the link completed without a result`));
        else resolve(result);
      },
    });
    signal.addEventListener(
      'abort',
      () => {
        subscription.unsubscribe();
        reject(signal.reason instanceof Error ? signal.reason : new DOMException('The call was aborted.', 'AbortError'));
      },
      { once: true },
    );
  });

/**
 * The clients' one retry policy as a tRPC link, before the links that send: every call, whichever
 * link carries it, is retried as `withRetries` says. A create gets its `Idempotency-Key` here, once
 * per call, in its context (`idempotencyKeyOf`), so every attempt sends the same one.
 *
 * tRPC's own `retryLink` decides from the error but takes the delay from the attempt's number
 * alone, so it cannot wait what `Retry-After` asks; nor has it a deadline or an attempt timeout.
 */
export const retryLink =
  (options: RetryOptions = {}): TRPCLink<AppRouter> =>
  () =>
  ({ op, next }) =>
    observable<Result, TRPCClientError<AppRouter>>((observer) => {
      const call = new AbortController();
      const callerAborted = () => {
        call.abort(op.signal?.reason);
      };
      op.signal?.addEventListener('abort', callerAborted, { once: true });
      const context = op.type === 'mutation' ? { ...op.context, idempotencyKey: crypto.randomUUID() } : op.context;
      withRetries<Result>(options, {
        name: op.path,
        repeatable: op.type === 'query' || idempotencyKeyOf({ context }) !== undefined,
        caller: call.signal,
        attempt: (signal) => attemptThrough(next, { ...op, context }, signal),
        setbackOf,
      }).then(
        (result) => {
          observer.next(result);
          observer.complete();
        },
        (error: unknown) => {
          observer.error(TRPCClientError.from(error instanceof Error ? error : new Error(String(error))));
        },
      );
      return () => {
        op.signal?.removeEventListener('abort', callerAborted);
        call.abort();
      };
    });
