import type { PetRecords } from '../db/database.js';
import { encodeCursor } from '../schemas/cursor.js';
import type { ListPetsInput, ListPetsQuery } from '../schemas/list-pets.js';
import type { Pet } from '../schemas/pet.js';

export interface PetPage {
  pets: Pet[];
  /** The query for the following page; absent on the last page. */
  next?: ListPetsQuery;
}

/**
 * One page of animals by ascending id. It asks for one animal more than the page holds: that extra
 * row is how it knows another page exists, so a `next` link never leads to an empty page.
 */
export const readPetPage = async (records: PetRecords, query: ListPetsInput): Promise<PetPage> => {
  const { limit, status } = query;
  const rows = await records.page({ afterId: query.cursor ?? 0, status, take: limit + 1 });
  const pets = rows.slice(0, limit);
  const last = pets.at(-1);
  if (rows.length <= limit || !last) return { pets };
  return { pets, next: { limit, ...(status && { status }), cursor: encodeCursor(last.id) } };
};
