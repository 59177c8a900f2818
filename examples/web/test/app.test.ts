import { type TestServer, descendantsOf, portNobodyHolds, startTestServer } from '@petstore/api/testing';
import { launchChromium } from '@petstore/api/testing/chromium';
import { createPetstoreClient, isPetstoreError } from '@petstore/client';
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_SIZE } from '../src/pet-list.js';
import { DEV_ORIGIN } from '../vite.config.js';

/*
 * The app as `npx pnpm dev` starts it from the repository's root, the service beside it, with
 * nothing set: the service must allow the app's origin (CORS) by itself, and the app is driven in
 * Chromium from its Vite dev server, another origin than the service's.
 */
const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SCREENSHOT = fileURLToPath(new URL('../../../docs/web-example.png', import.meta.url));
const AVAILABLE = 12;
const SOLD = 3;

const scratch = mkdtempSync(join(tmpdir(), 'petstore-web-'));
let dev: ChildProcessByStdio<null, Readable, Readable>;
let printed = '';
let serviceUrl = '';
let apiKey = '';
let browser: Browser | undefined;
let page: Page;
/** What the page threw. (The browser logs each refused call and the missing favicon as an error of its own.) */
const pageErrors: string[] = [];

/** Resolves once `pattern` is in what `npx pnpm dev` printed, with its match. */
const printedMatch = (pattern: RegExp) =>
  new Promise<RegExpExecArray>((resolve, reject) => {
    const check = () => {
      // Vite colours its lines whatever the terminal: the text without its escapes.
      const found = pattern.exec(stripVTControlCharacters(printed));
      if (found) {
        dev.stdout.off('data', check);
        resolve(found);
      }
    };
    dev.stdout.on('data', check);
    dev.once('exit', (code) => {
      reject(new Error(`npx pnpm dev exited with ${String(code)} before printing ${String(pattern)}:\n${printed}`));
    });
    check();
  });

beforeAll(async () => {
  const port = await portNobodyHolds();
  const environment: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), PETSTORE_DB: join(scratch, 'dev.db') };
  delete environment.CORS_ORIGINS;
  // The service's port is the test's (another may run beside it); the app's is dev's own, 5173.
  dev = spawn('npx', ['pnpm', 'dev'], { cwd: REPO_ROOT, env: environment, stdio: ['ignore', 'pipe', 'pipe'] });
  dev.stdout.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  dev.stderr.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  [, apiKey = ''] = await printedMatch(/\b(pst_[A-Za-z0-9_]+)\b/);
  await printedMatch(/Petstore is listening/);
  await printedMatch(new RegExp(`Local:\\s+${DEV_ORIGIN.replaceAll('.', '\\.')}`));
  serviceUrl = `http://127.0.0.1:${String(port)}`;

  const petstore = createPetstoreClient({ url: serviceUrl, apiKey });
  for (let index = 1; index <= AVAILABLE; index++) await petstore.createPet.mutate({ name: `Seed ${String(index)}`, categoryId: 1 });
  for (let index = 1; index <= SOLD; index++) await petstore.createPet.mutate({ name: `Sold ${String(index)}`, categoryId: 2, status: 'sold' });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 820, height: 460 } });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(DEV_ORIGIN);
});
afterAll(async () => {
  // What `npx pnpm dev` started (pnpm, turbo, the service's watcher and the service, Vite), then itself.
  const exited = dev.exitCode === null ? once(dev, 'exit') : undefined;
  for (const { pid } of descendantsOf(dev.pid ?? 0).reverse()) process.kill(pid, 'SIGTERM');
  dev.kill('SIGTERM');
  await exited;
  await browser?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const connect = async (url: string, key: string) => {
  await page.fill('input[name=url]', url);
  await page.fill('input[name=apiKey]', key);
  await page.click('button:text("Connect")');
};

const listed = () => page.locator('li[data-pet-id]');
const listedIds = async () => (await listed().evaluateAll((items) => items.map((item) => item.getAttribute('data-pet-id')))).map(Number);

describe('the example app in a browser', () => {
  it('asks for a key, then lists the animals a page at a time; "Load more" reaches the last page with no repeat', async () => {
    await connect(serviceUrl, apiKey);
    await expect.poll(() => listed().count()).toBe(PAGE_SIZE);
    const loadMore = page.locator('button:text("Load more")');
    let pages = 1;
    while ((await loadMore.count()) > 0) {
      const before = await listed().count();
      await loadMore.click();
      await expect.poll(() => listed().count()).toBeGreaterThan(before);
      pages += 1;
      if (pages > 10) throw new Error('"Load more" never ends');
    }
    const ids = await listedIds();
    expect(ids).toHaveLength(AVAILABLE + SOLD);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(pages).toBe(Math.ceil((AVAILABLE + SOLD) / PAGE_SIZE));
  });

  it('filters by status', async () => {
    await page.selectOption('select[name=status]', 'sold');
    await expect.poll(() => listed().allTextContents()).toEqual(['Sold 1', 'Sold 2', 'Sold 3'].map((name): unknown => expect.stringContaining(`${name} (sold`)));
  });

  it("shows the server's validation message for an invalid animal", async () => {
    const refused = await createPetstoreClient({ url: serviceUrl, apiKey })
      .createPet.mutate({ name: '   ', categoryId: 1 })
      .catch((error: unknown) => error);
    if (!isPetstoreError(refused)) throw new Error('the service accepted a blank name');
    await page.fill('input[name=name]', '   ');
    await page.click('button:text("Add")');
    await expect.poll(() => page.locator('form [role=alert]').textContent()).toBe(refused.message);
  });

  it('adds a valid animal, which appears in the list', async () => {
    await page.fill('input[name=name]', 'Biscuit');
    await page.selectOption('select[name=newStatus]', 'sold');
    await page.click('button:text("Add")');
    await expect.poll(() => listed().allTextContents()).toContainEqual(expect.stringContaining('Biscuit (sold'));
    expect(await listed().count()).toBe(SOLD + 1);
    await expect.poll(() => page.locator('form [role=alert]').count()).toBe(0);
    // The server's address and key differ every run: masked, the picture changes only when the app does.
    await page.screenshot({ path: SCREENSHOT, mask: [page.locator('input[name=url]'), page.locator('input[name=apiKey]')] });
  });

  it('has thrown nothing', () => {
    expect(pageErrors).toEqual([]);
  });

  it("says what to set when the service does not allow the app's origin, and when nothing answers", async () => {
    const withoutCors: TestServer = await startTestServer();
    try {
      await connect(withoutCors.url, withoutCors.apiKey);
      await expect
        .poll(() => page.locator('section [role=alert]').textContent(), { timeout: 30_000 })
        .toBe(
          `The service at ${withoutCors.url} answers, but not to this page: its CORS_ORIGINS does not list ${DEV_ORIGIN}. ` +
            `Start it with CORS_ORIGINS=${DEV_ORIGIN} (npx pnpm dev does).`,
        );
    } finally {
      await withoutCors.dispose();
    }
    const nobody = `http://127.0.0.1:${String(await portNobodyHolds())}`;
    await connect(nobody, apiKey);
    await expect
      .poll(() => page.locator('section [role=alert]').textContent(), { timeout: 30_000 })
      .toBe(`Nothing answers at ${nobody}: is the service running, and is that its address?`);
  });
});
