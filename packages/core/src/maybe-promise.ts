/**
 * A value now or later. SQLite answers a read at once; PostgreSQL, later. A read that needs no
 * promise is carried through without one, so a get by id on SQLite is answered in the turn its
 * request arrived in (docs/decisions).
 */
export type MaybePromise<T> = T | Promise<T>;

/** `next` of `value`: at once when it is there, when it settles when it is a promise. */
export const andThen = <T, R>(value: MaybePromise<T>, next: (settled: T) => MaybePromise<R>): MaybePromise<R> =>
  value instanceof Promise ? value.then(next) : next(value);

/** `run()`'s outcome as a promise, whether it returned a value, a promise or threw. */
export const settle = <T>(run: () => MaybePromise<T>): Promise<T> =>
  new Promise((resolve) => {
    resolve(run());
  });
