import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { API_ROOT, REPO_ROOT } from './processes.js';

/**
 * vitest's global set-up for this package: builds core and the service once, before any test file,
 * when their sources changed since the last build (turbo's `build`, which the test task waits for,
 * usually has), so that every test starting the service or a CLI as a process of its own runs
 * `dist/`, as `npx pnpm start` does, rather than compiling the TypeScript again in each.
 */
export default function build(): void {
  execFileSync(process.execPath, [join(REPO_ROOT, 'tools/build/transpile.mjs'), join(REPO_ROOT, 'packages/core'), API_ROOT], { stdio: 'inherit' });
}
