import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_BATCH_SIZE, PAGE_SIZE, PET_NAME_MAX_CODE_POINTS, encodeCursor } from '@petstore/core';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect } from 'vitest';
import { it } from '../src/testing/index.js';
import { call } from './support/http.js';
import { REPO_ROOT } from './support/processes.js';

/**
 * The largest answer the service can give, computed from its limits by the service itself: a store
 * of the widest animals it accepts, read back through both transports. docs/operating.md quotes the
 * figures; this holds them to what the service answers.
 */

const MAX_ID = Number.MAX_SAFE_INTEGER;
/** The widest name a create takes: every character four bytes of UTF-8, none escaped by JSON. */
const WIDEST_NAME = '😀'.repeat(PET_NAME_MAX_CODE_POINTS);
const WIDEST_STATUS = 'available';

const operating = readFileSync(join(REPO_ROOT, 'docs', 'operating.md'), 'utf8');
/** A figure the docs give in bytes, by the words before it. */
const documented = (words: string) =>
  Number(new RegExp(`${words.replaceAll(' ', '\\s+')}\\s+\\*\\*([0-9,]+) bytes\\*\\*`).exec(operating)?.[1]?.replaceAll(',', ''));

describe('the largest answer', () => {
  it('is what docs/operating.md says, for a page on REST and for a batch of pages on tRPC', async ({ server }) => {
    // The widest rows, with the largest ids and categories, written as a create would store them.
    const raw = new BetterSqlite3(server.storageEnv.PETSTORE_DB ?? '');
    const insert = raw.prepare('insert into pets (id, name, category_id, status) values (?, ?, ?, ?)');
    raw.transaction(() => {
      for (let id = MAX_ID - PAGE_SIZE.max; id <= MAX_ID; id++) insert.run(id, WIDEST_NAME, MAX_ID, WIDEST_STATUS);
    })();
    raw.close();
    // A page of the largest ids that is not the last: its answer carries a cursor too.
    const cursor = encodeCursor(MAX_ID - PAGE_SIZE.max - 1);

    const page = await call(server, `/v1/pets?limit=${PAGE_SIZE.max}&cursor=${cursor}`);
    const pageBytes = (await page.arrayBuffer()).byteLength;
    expect(page.headers.get('link')).toMatch(/rel="next"/);

    const input = encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: MAX_BATCH_SIZE }, (_, index) => [index, { limit: PAGE_SIZE.max, cursor }]))));
    const batch = await call(server, `/trpc/${Array.from({ length: MAX_BATCH_SIZE }, () => 'listPets').join(',')}?batch=1&input=${input}`);
    const batchBytes = (await batch.arrayBuffer()).byteLength;
    expect(batch.status).toBe(200);

    console.log(`largest answers: a REST page ${pageBytes} bytes, a tRPC batch ${batchBytes} bytes`);
    expect(documented('a page of 100 of them on REST is')).toBe(pageBytes);
    expect(documented(`a tRPC batch of ${MAX_BATCH_SIZE} such pages`)).toBe(batchBytes);
  });
});
