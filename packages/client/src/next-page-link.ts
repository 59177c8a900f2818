import type { AppRouter } from '@petstore/core';
import type { TRPCLink } from '@trpc/client';
import { observable } from '@trpc/server/observable';

/** Where a `listPets` call leaves the cursor of the following page, if there is one. */
export interface PageContext {
  [key: string]: unknown;
  nextCursor?: string;
}

const NEXT = /<([^>]*)>\s*;\s*rel="next"/;

const cursorOf = (link: string | null) => {
  const target = link === null ? undefined : NEXT.exec(link)?.[1];
  return target === undefined ? undefined : new URL(target, 'http://petstore.invalid').searchParams.get('cursor') ?? undefined;
};

/**
 * The server tells a lone `listPets` call where the next page starts the way it tells REST
 * clients: a `Link: <…>; rel="next"` header. This link copies that cursor into the call's context.
 */
export const nextPageLink =
  (): TRPCLink<AppRouter> =>
  () =>
  ({ op, next }) =>
    observable((observer) =>
      next(op).subscribe({
        next: (value) => {
          const response = (value.context as { response?: Response } | undefined)?.response;
          const cursor = cursorOf(response?.headers.get('link') ?? null);
          if (cursor !== undefined) (op.context as PageContext).nextCursor = cursor;
          observer.next(value);
        },
        error: (error) => {
          observer.error(error);
        },
        complete: () => {
          observer.complete();
        },
      }),
    );
