/**
 * A value now or later. SQLite answers a read at once; PostgreSQL, later. A read that needs no
 * promise is carried through without one, so a get by id on SQLite is answered in the turn its
 * request arrived in (docs/decisions).
 */
export type MaybePromise<T> = T | Promise<T>;

/** `next` of `value`: at once when it is there, when it settles when it is a promise. */
export const andThen = <T, R>(value: MaybePromise<T>, next: (settled: T) => MaybePromise<R>): MaybePromise<R> =>
  value instanceof Promise ? value.then(next) : next(value);

/**
 * `run()`'s value through `next`, or its failure, thrown or rejected, through `failed`: at once when
 * `run` answers at once. A failure of `next` is not `failed`'s.
 */
export const attempt = <T, R>(
  run: () => MaybePromise<T>,
  next: (value: T) => MaybePromise<R>,
  failed: (error: unknown) => MaybePromise<R>,
): MaybePromise<R> => {
  let value: MaybePromise<T>;
  try {
    value = run();
  } catch (error) {
    return failed(error);
  }
  return value instanceof Promise ? value.then(next, failed) : next(value);
};

/** `run()`'s outcome as a promise, whether it returned a value, a promise or threw. */
export const settle = <T>(run: () => MaybePromise<T>): Promise<T> =>
  new Promise((resolve) => {
    resolve(run());
  });
