import { type ListPetsInput, encodeCursor } from '@petstore/core';

/**
 * A page as both framework peers answer it, from one row more than the page holds: the animals,
 * and the `Link` header of the next page when that extra row says one exists.
 */
export const peerPage = <Row extends { id: number }>(rows: Row[], { limit, status }: Pick<ListPetsInput, 'limit' | 'status'>) => {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  if (rows.length <= limit || !last) return { items, link: undefined };
  const next = new URLSearchParams({ limit: String(limit), ...(status && { status }), cursor: encodeCursor(last.id) });
  return { items, link: `</v1/pets?${next.toString()}>; rel="next"` };
};
