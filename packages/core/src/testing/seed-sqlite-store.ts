import BetterSqlite3 from 'better-sqlite3';
import { openSqliteDatabase } from '../db/sqlite/open-sqlite-database.js';

/**
 * A migrated SQLite store holding `animals` more rows, written in one statement rather than one
 * create at a time, each named `name` (`seed <n>` by default): a name no create would take today
 * stands for a row stored before the rule. Returns the file's size in pages.
 */
export const seedSqliteStore = async (file: string, animals: number, name?: string): Promise<number> => {
  await openSqliteDatabase(file).close();
  const raw = new BetterSqlite3(file);
  raw
    .prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?)
       insert into pets (name, category_id, status) select coalesce(?, 'seed ' || i), 1 + i % 9, 'available' from n`,
    )
    .run(animals, name ?? null);
  const pages = raw.pragma('page_count', { simple: true }) as number;
  raw.close();
  return pages;
};
