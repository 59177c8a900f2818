import { isPetstoreError } from '@petstore/client';
import { useQuery } from '@tanstack/react-query';

/**
 * Whether anything answers at the service's address, asked the one way a page may ask another
 * origin without its leave: an opaque (`no-cors`) request, whose answer the page cannot read but
 * whose arrival it sees. `/healthz` needs no key.
 */
const answersAtAll = async (url: string) => {
  try {
    await fetch(`${url.replace(/\/+$/, '')}/healthz`, { mode: 'no-cors', cache: 'no-store' });
    return true;
  } catch {
    return false;
  }
};

/** A call that got no answer at all: the browser's fetch failed, as it does when the service does not allow this page's origin. */
const gotNoAnswer = (error: unknown) => isPetstoreError(error) && error.data == null && error.cause instanceof TypeError;

/**
 * A failed call, said so that the reader knows what to do. The browser says "Failed to fetch" both
 * when nothing answers and when the service answers without allowing this page's origin (CORS);
 * which of the two it is, the opaque request tells.
 */
export const CallError = ({ error, url }: { error: { message: string }; url: string }) => {
  const noAnswer = gotNoAnswer(error);
  const reachable = useQuery({ queryKey: ['answers-at-all', url], queryFn: () => answersAtAll(url), enabled: noAnswer, retry: false, staleTime: 0 });
  const origin = window.location.origin;
  let message = error.message;
  if (noAnswer && reachable.data === true) {
    message =
      `The service at ${url} answers, but not to this page: its CORS_ORIGINS does not list ${origin}. ` +
      `Start it with CORS_ORIGINS=${origin} (npx pnpm dev does).`;
  } else if (noAnswer && reachable.data === false) {
    message = `Nothing answers at ${url}: is the service running, and is that its address?`;
  }
  return <p role="alert">{message}</p>;
};
