import { join } from 'node:path';
import { operations } from '@petstore/core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, describe, expect } from 'vitest';
import { it } from '../src/testing/index.js';
import { launchChromium } from '../src/testing/chromium.js';
import { call } from './support/http.js';
import { REPO_ROOT } from './support/processes.js';

let browser: Browser;
let page: Page;
const requested: string[] = [];

it.beforeAll(async ({ server }) => {
  await call(server, '/v1/pets', { method: 'POST', json: { name: 'Biscuit', categoryId: 2 } });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.on('request', (request) => requested.push(request.url()));
  await page.goto(`${server.url}/docs`);
  await page.locator('.opblock').first().waitFor();
}, 60_000);

afterAll(() => browser.close());

describe('the docs page in a browser', () => {
  it('renders every operation under its tag, a deprecated one marked', async () => {
    for (const [name, { meta }] of Object.entries(operations)) {
      const block = `#operations-${meta.openapi?.tags?.[0] ?? 'default'}-${name}`;
      await expect(page.locator(block).count()).resolves.toBe(1);
      await expect(page.locator(`${block}.opblock-deprecated`).count()).resolves.toBe(meta.deprecation ? 1 : 0);
    }
    await page.screenshot({ path: join(REPO_ROOT, 'docs', 'docs-page.png') });
  });

  it('lists the animals through "Try it out" once a key is entered', async ({ server }) => {
    await page.locator('button.authorize').first().click();
    await page.locator('.modal-ux input[type=text]').fill(server.apiKey);
    await page.locator('.modal-ux button.authorize').click();
    await page.locator('.modal-ux button.btn-done').click();

    await page.locator('#operations-animals-listPets .opblock-summary').click();
    await page.locator('#operations-animals-listPets button.try-out__btn').click();
    await page.locator('#operations-animals-listPets button.execute').click();

    const live = page.locator('#operations-animals-listPets .live-responses-table');
    const row = live.locator('tr.response');
    await row.waitFor();
    await expect(row.locator('.response-col_status').innerText()).resolves.toContain('200');
    await expect(row.locator('.response-col_description').innerText()).resolves.toContain('Biscuit');
  });

  it('keeps the key entered only in the page, not in the browser\'s storage', async ({ server }) => {
    // After the test above entered it: Swagger UI's persistAuthorization would keep it in localStorage.
    const stored = await page.evaluate<string>('JSON.stringify({ ...localStorage, ...sessionStorage })');
    expect(stored).not.toContain(server.apiKey.slice(17));
  });

  it('links to the document when JavaScript is off', async ({ server }) => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      const plain = await context.newPage();
      await plain.goto(`${server.url}/docs`);
      const link = plain.locator('noscript a');
      await expect(link.getAttribute('href')).resolves.toBe('/v1/openapi.json');
      await expect(link.isVisible()).resolves.toBe(true);
    } finally {
      await context.close();
    }
  });

  it('loads everything from this server: no CDN, no outside request', ({ server }) => {
    expect(requested.length).toBeGreaterThan(3);
    expect(requested.filter((url) => !url.startsWith(server.url))).toEqual([]);
  });
});
