import type { PetStatus } from '@petstore/client';
import { useInfiniteQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { CallError } from './call-error.js';
import { useTRPC } from './trpc.js';

export const PAGE_SIZE = 5;
const STATUSES: PetStatus[] = ['available', 'pending', 'sold'];

/** The animals, a page at a time: "Load more" asks for the page after the last one's `nextCursor`. */
export const PetList = ({ url }: { url: string }) => {
  const trpc = useTRPC();
  const [status, setStatus] = useState<PetStatus | ''>('');
  const pets = useInfiniteQuery(
    trpc.listPets.infiniteQueryOptions(
      { limit: PAGE_SIZE, ...(status && { status }) },
      { getNextPageParam: (page) => page.nextCursor },
    ),
  );
  return (
    <section>
      <h2>Animals</h2>
      <label>
        Status{' '}
        <select name="status" value={status} onChange={(event) => { setStatus(event.target.value as PetStatus | ''); }}>
          <option value="">all</option>
          {STATUSES.map((each) => (
            <option key={each}>{each}</option>
          ))}
        </select>
      </label>
      {pets.isPending && <p>Loading…</p>}
      {pets.isError && <CallError error={pets.error} url={url} />}
      <ul>
        {pets.data?.pages.flatMap((page) =>
          page.items.map((pet) => (
            <li key={pet.id} data-pet-id={pet.id}>
              #{pet.id} {pet.name} ({pet.status}, category {pet.categoryId})
            </li>
          )),
        )}
      </ul>
      {pets.hasNextPage && (
        <button type="button" onClick={() => void pets.fetchNextPage()} disabled={pets.isFetchingNextPage}>
          {pets.isFetchingNextPage ? 'Loading…' : 'Load more'}
        </button>
      )}
    </section>
  );
};
