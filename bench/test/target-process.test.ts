import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, expect, it } from 'vitest';
import { seedDatabase } from '../src/seed.js';
import { startTarget } from '../src/target-process.js';

const folder = mkdtempSync(join(tmpdir(), 'petstore-target-process-'));

afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

/** Processes whose environment names `text`: a target started on that file. */
const processesNaming = (text: string) =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'utf8').includes(text);
      } catch {
        return false; // gone meanwhile, or not ours to read
      }
    });

it('fails a target that never says which port it took, within its start timeout, and ends it', async () => {
  const file = join(folder, 'silent.db');
  const { apiKey } = await seedDatabase(file, 10);
  const startedAt = Date.now();
  // At `warn` the service never logs the line that carries its port.
  await expect(startTarget('service', { database: { file }, apiKey, service: { logLevel: 'warn' } }, undefined, 3_000)).rejects.toThrow(
    /service did not say which port it took within 3000 ms/,
  );
  expect(Date.now() - startedAt).toBeLessThan(10_000);
  await sleep(500);
  expect(processesNaming(file)).toEqual([]);
}, 20_000);
