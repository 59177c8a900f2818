import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProcessInfo, collect, descendantsOf, isRunning, waitForOutput } from '@petstore/api/testing';
import { pagesTheReadmeLinks, promisedStatuses, readmeSetUp, readmeShellBlocks, shellBlocks } from './support/readme.js';
import { REPO_ROOT } from './support/repository.js';

/*
 * The README's commands as a reader pastes them, in order, on a machine with only Node and npm:
 * its set-up command runs the service, then every later shell block of the README, and then of
 * each page under docs/ in the order the README links them, runs in one bash.
 *
 * Blocks this test does not paste:
 * - the README's first, the set-up: its install made the node_modules this test runs from, its
 *   run command is the service started below (from the README's own text, on a scratch database
 *   and a free port), and its test command is what runs this test;
 * - blocks that call `docker`: there is no Docker engine here (deployment-files.test.ts checks
 *   those files);
 * - ```text blocks, where the documentation puts commands that run for long, start a server of
 *   their own or set up a project elsewhere (the typed client's installation in a new app, which
 *   packages/client/test/packed.test.ts pastes); the checks at the end still hold their
 *   `npx pnpm` commands to the scripts.
 * The base URL the documentation gives, http://127.0.0.1:3000, becomes the started service's.
 */
const README_BASE_URL = 'http://127.0.0.1:3000';
const pastedBlocks = () =>
  [...readmeShellBlocks().slice(1), ...pagesTheReadmeLinks().flatMap(shellBlocks)].filter((block) => !/\bdocker\b/.test(block));

/**
 * How long the pasted commands may take together: a dozen `npx pnpm …` start TypeScript from
 * source, each a few seconds on two busy cores.
 */
const PASTE_TIMEOUT_MS = 480_000;

/** What `npx pnpm start` may leave running once the service answers, all together (the budget). */
const TREE_BUDGET_MIB = 220;

const folder = mkdtempSync(join(tmpdir(), 'petstore-readme-'));

/**
 * A fresh terminal: node, npm and npx (and no pnpm of its own: a bare `pnpm` fails loudly), the
 * system's tools, a home for npm's cache, and none of the variables pnpm, turbo and vitest set
 * for this run.
 */
const freshShellEnvironment = (): NodeJS.ProcessEnv => {
  const bin = join(folder, 'bin');
  mkdirSync(bin);
  for (const tool of ['node', 'npm', 'npx']) symlinkSync(join(dirname(process.execPath), tool), join(bin, tool));
  writeFileSync(join(bin, 'pnpm'), '#!/bin/sh\necho "pnpm: command not found (a fresh machine has only node and npm)" >&2\nexit 127\n');
  chmodSync(join(bin, 'pnpm'), 0o755);
  const kept = ['LANG', 'TURBO_TELEMETRY_DISABLED', 'TURBO_NO_UPDATE_NOTIFIER'].filter((name) => process.env[name] !== undefined);
  return {
    ...Object.fromEntries(kept.map((name) => [name, process.env[name]])),
    HOME: homedir(),
    PATH: [bin, '/usr/bin', '/bin'].join(':'),
    PETSTORE_DB: join(folder, 'petstore.db'),
  };
};

const shell = freshShellEnvironment();

/** The README's run command (the part after its install), started the way a terminal starts it. */
const startAsTheReadmeDoes = async () => {
  const { command } = readmeSetUp().run;
  // `exec`: the process started is the README's command itself, not a shell around it; detached:
  // it leads its own process group, as a command typed in a terminal does.
  const child = spawn('sh', ['-c', `exec ${command}`], {
    cwd: REPO_ROOT,
    env: { ...shell, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  started = child;
  const printed = await waitForOutput(child, /"msg":"Petstore is listening".*\n/);
  const listening = /\{.*"msg":"Petstore is listening".*\}/.exec(printed)?.[0] ?? '{}';
  const { port } = JSON.parse(listening) as { port: number };
  return { child, pid: child.pid ?? 0, url: `http://127.0.0.1:${String(port)}`, finished: collect(child) };
};

const kindOf = ({ command }: ProcessInfo) => {
  if (/\/pnpm(\.c?js)? /.test(command)) return 'pnpm';
  if (/^node .*dist\/main\.js$/.test(command)) return 'service';
  return command;
};

let started: ChildProcess | undefined;
let service: Awaited<ReturnType<typeof startAsTheReadmeDoes>>;
describe('the README, run as a reader runs it', () => {
  beforeAll(async () => {
    service = await startAsTheReadmeDoes();
  }, 240_000);
  afterAll(async () => {
    // Whatever happened above, nothing this test started outlives it.
    const pid = started?.pid;
    if (pid !== undefined && isRunning(pid)) {
      const tree = descendantsOf(pid);
      process.kill(-pid, 'SIGTERM');
      await expect.poll(() => isRunning(pid), { timeout: 10_000 }).toBe(false).catch(() => undefined);
      for (const { pid: left } of [{ pid }, ...tree].filter(({ pid: candidate }) => isRunning(candidate))) process.kill(left, 'SIGKILL');
    }
    rmSync(folder, { recursive: true, force: true });
  });

  describe("the README's run command", () => {
    it('leaves only its pnpm and the service running once the service answers', async () => {
      expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
      const tree = descendantsOf(service.pid);
      const described = tree.map(({ pid, parent, command, rssMiB }) => `${String(pid)} < ${String(parent)} ${rssMiB.toFixed(1)} MiB ${command}`).join('\n');
      // npx runs its command through a shell of its own; under it, pnpm's start script ends by
      // exec-ing the service, so nothing (turbo, a second pnpm, a shell) stays between the two.
      const [first, ...rest] = tree;
      const underNpxShell = first !== undefined && /^sh -c /.test(first.command) ? rest : tree;
      expect(underNpxShell.map(kindOf), described).toEqual(['pnpm', 'service']);
      expect(underNpxShell[1]?.parent, described).toBe(underNpxShell[0]?.pid);
      const totalMiB = tree.reduce((sum, { rssMiB }) => sum + rssMiB, 0);
      expect(totalMiB, described).toBeLessThan(TREE_BUDGET_MIB);
    });
  });

  describe('the README and its pages, pasted in order after the set-up', () => {
    it('runs every command with exit code 0, and each curl gets the status its comment promises', async () => {
      const blocks = pastedBlocks();
      const promised = blocks.flatMap(promisedStatuses);
      expect(promised.filter(({ status }) => status === undefined), 'curl commands whose comment gives no status').toEqual([]);

      const script = [
        'set -eo pipefail',
        `trap 'echo "README command failed with exit code $?: $BASH_COMMAND" >&2' ERR`,
        // Each curl also prints its status on a line of its own, for the comparison below.
        `curl() { command curl --no-progress-meter --write-out '\\nREADME-STATUS %{http_code}\\n' "$@"; }`,
        ...blocks.map((block) => block.replaceAll(README_BASE_URL, service.url)),
      ].join('\n');
      const pasted = await collect(spawn('bash', ['--noprofile', '--norc', '-c', script], { cwd: REPO_ROOT, env: shell, stdio: ['ignore', 'pipe', 'pipe'] }));

      expect(pasted.code, `${pasted.stderr}\n${pasted.stdout}`).toBe(0);
      const statuses = [...pasted.stdout.matchAll(/^README-STATUS (\d{3})$/gm)].map((match) => Number(match[1]));
      expect(statuses, pasted.stdout).toEqual(promised.map(({ status }) => status));
    }, PASTE_TIMEOUT_MS);
  });

  describe("the README's run command, stopped", () => {
    it('stops on SIGTERM, as the service finishes its requests, and leaves nothing running', async () => {
      const tree = descendantsOf(service.pid);
      process.kill(-service.pid, 'SIGTERM');
      const { stdout } = await service.finished;
      expect(stdout).toMatch(/"msg":"stopped"/);
      await expect.poll(() => tree.filter(({ pid }) => isRunning(pid)), { timeout: 10_000 }).toEqual([]);
    }, 30_000);
  });
});
