import { type TestServer, startTestServer } from '@petstore/api/testing';
import { launchChromium } from '@petstore/api/testing/chromium';
import { createPetstoreClient, isPetstoreError } from '@petstore/client';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { type PreviewServer, build, preview } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_SIZE } from '../src/pet-list.js';

/*
 * The app as a user meets it: built by Vite, served by Vite's preview server (another origin than
 * the service's), driven in Chromium against a live service that allows that origin (CORS_ORIGINS).
 */
const APP_ROOT = fileURLToPath(new URL('..', import.meta.url));
const SCREENSHOT = fileURLToPath(new URL('../../../docs/web-example.png', import.meta.url));
const AVAILABLE = 12;
const SOLD = 3;

const outDir = mkdtempSync(join(tmpdir(), 'petstore-web-'));
let app: PreviewServer;
let server: TestServer;
let browser: Browser;
let page: Page;
/** What the page threw or logged as an error: none expected. */
const pageErrors: string[] = [];

beforeAll(async () => {
  await build({ root: APP_ROOT, logLevel: 'warn', build: { outDir, emptyOutDir: true } });
  app = await preview({ root: APP_ROOT, logLevel: 'warn', build: { outDir }, preview: { port: 0, strictPort: true } });
  const appUrl = app.resolvedUrls?.local[0];
  if (appUrl === undefined) throw new Error('the preview server has no address');
  server = await startTestServer({ CORS_ORIGINS: new URL(appUrl).origin });
  const petstore = createPetstoreClient({ url: server.url, apiKey: server.apiKey });
  for (let index = 1; index <= AVAILABLE; index++) await petstore.createPet.mutate({ name: `Seed ${String(index)}`, categoryId: 1 });
  for (let index = 1; index <= SOLD; index++) await petstore.createPet.mutate({ name: `Sold ${String(index)}`, categoryId: 2, status: 'sold' });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 820, height: 460 } });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  await page.goto(appUrl);
});
afterAll(async () => {
  await browser.close();
  await server.dispose();
  await app.close();
  rmSync(outDir, { recursive: true, force: true });
});

const listed = () => page.locator('li[data-pet-id]');
const listedIds = async () => (await listed().evaluateAll((items) => items.map((item) => item.getAttribute('data-pet-id')))).map(Number);

describe('the example app in a browser', () => {
  it('asks for a key, then lists the animals a page at a time; "Load more" reaches the last page with no repeat', async () => {
    await page.fill('input[name=url]', server.url);
    await page.fill('input[name=apiKey]', server.apiKey);
    await page.click('button:text("Connect")');
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
    const refused = await createPetstoreClient({ url: server.url, apiKey: server.apiKey })
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
});
