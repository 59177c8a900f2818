import { type Column, type Placeholder, type SQL, and, asc, eq, gt, sql } from 'drizzle-orm';

/** `select * from pets` in an engine's dialect, as far as a page needs it. */
interface PetsSelect<Page> {
  where(where: SQL | undefined): { orderBy(order: SQL): { limit(limit: Placeholder): Page } };
}

/**
 * The two page statements, the same on both engines: ids after the cursor (`afterId`), of one
 * status when one is given (`status`), at most `take` rows, by ascending id. Placeholders, so each
 * engine prepares them once.
 */
export const petPageQueries = <Page>(pets: { id: Column; status: Column }, selectPets: () => PetsSelect<Page>) => {
  const afterCursor = gt(pets.id, sql.placeholder('afterId'));
  const page = (where: SQL | undefined) => selectPets().where(where).orderBy(asc(pets.id)).limit(sql.placeholder('take'));
  return {
    page: page(afterCursor),
    pageWithStatus: page(and(eq(pets.status, sql.placeholder('status')), afterCursor)),
  };
};
