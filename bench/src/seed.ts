import { copyFileSync } from 'node:fs';
import { PET_STATUSES, createApiKeys, openSqliteDatabase } from '@petstore/core';
import BetterSqlite3 from 'better-sqlite3';
import { SingleBar } from 'cli-progress';

const PROGRESS_EVERY = 10_000;

/**
 * A database with `count` animals (statuses in turn) and one API key. The schema comes from the
 * real migrations; the rows go in through one prepared statement inside one transaction, which
 * writes a million rows in seconds where a million requests would take minutes.
 */
export const seedDatabase = async (file: string, count: number): Promise<{ apiKey: string }> => {
  const db = openSqliteDatabase(file);
  const { token } = await createApiKeys(db.apiKeys).create('bench');
  await db.close();

  const sqlite = new BetterSqlite3(file);
  const insert = sqlite.prepare('insert into pets (name, category_id, status) values (?, ?, ?)');
  // Printed every second even without a terminal (the benchmark runs under turbo).
  const bar =
    count >= 100_000
      ? new SingleBar({ format: 'seeding {bar} {value}/{total} animals', noTTYOutput: true, notTTYSchedule: 1000 })
      : undefined;
  bar?.start(count, 0);
  sqlite.transaction(() => {
    for (let index = 0; index < count; index++) {
      insert.run(`pet ${index + 1}`, 1 + (index % 50), PET_STATUSES[index % PET_STATUSES.length]);
      if ((index + 1) % PROGRESS_EVERY === 0) bar?.update(index + 1);
    }
  })();
  bar?.update(count);
  bar?.stop();
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  sqlite.close();
  return { apiKey: token };
};

/** Each target gets its own copy, so one target's creates never change another's data. */
export const copyDatabase = (from: string, to: string) => {
  copyFileSync(from, to);
};
