import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Pet } from '@petstore/core';
import { seedSqliteStore as seedStore } from '@petstore/core/testing';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, onTestFinished } from 'vitest';
import { BACKUP_COMMAND } from '../src/cli/backup-command.js';
import { TEST_ENGINE, it } from '../src/testing/index.js';
import { REPO_ROOT, collect, spawnCommand, spawnEntry, waitForOutput } from './support/processes.js';

/** The load: this many clients creating animals, one request after another each. */
const WRITERS = 16;
/** Acknowledged creates before the backup starts, so the copy has animals of the writers' to hold. */
const ACKS_BEFORE_BACKUP = 500;
/**
 * Animals written into the store before the service starts: enough pages for the backup to take
 * many steps and long enough that a backup blocking writes would make them fail (below).
 */
const SEEDED_ANIMALS = 200_000;
/**
 * How long the service's writes wait for SQLite's write lock before failing with 503. Short, so
 * that a backup holding the lock while it copies fails writes instead of only slowing them down.
 */
const WRITE_LOCK_WAIT_MS = '250';
/**
 * The longest the writers keep writing. A backup must end while they write: one that could only
 * finish once writes stop (a stepped backup restarting at every write) ends after this instead.
 */
const WRITING_AT_MOST_MS = 120_000;

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'petstore-backup-'));
});
afterEach(() => {
  rmSync(folder, { recursive: true, force: true });
});

/** The CLI as apps/api's `backup` bin runs it. */
const backup = (args: string[], env: Record<string, string>, cwd?: string) => collect(spawnCommand('bin/backup', args, env, cwd));

/** As users type it, from the repository root: `npx pnpm backup …`. */
const backupFromRoot = async (args: string[], env: Record<string, string>) => {
  const finished = await collect(spawnCommand('sh', ['-c', `${BACKUP_COMMAND} "$@"`, 'sh', ...args], env, REPO_ROOT));
  // npm warns about settings in the user's own ~/.npmrc; that is the machine, not this CLI.
  return { ...finished, stderr: finished.stderr.replace(/^npm warn .*\n/gm, '') };
};

const USAGE = /^Usage:\n {2}npx pnpm backup <file> \[--force\]\n/;
const BACKED_UP = /^Backed up (\S+) to (\S+): (\d+) pages, (\d+) animals, (\d+\.\d+) s; integrity_check ok\.\n$/;


const readCopy = (file: string) => {
  const copy = new BetterSqlite3(file, { readonly: true });
  try {
    const rows = copy.prepare('select id, name, category_id as categoryId, status from pets').all() as Pet[];
    return { integrity: copy.pragma('integrity_check', { simple: true }), pets: new Map(rows.map((pet) => [pet.id, pet])) };
  } finally {
    copy.close();
  }
};

/** The service from source, as `pnpm dev` runs it, stopped when the test ends. */
const startService = async (env: Record<string, string>) => {
  const child = spawnEntry('src/main.ts', [], { PORT: '0', RATE_LIMIT_PER_MINUTE: '0', ...env });
  const exited = collect(child);
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  const printed = await waitForOutput(child, /"msg":"Petstore is listening"/);
  return {
    url: `http://127.0.0.1:${/"port":(\d+)/.exec(printed)?.[1] ?? ''}`,
    firstKey: /^ {2}(pst_\S+)$/m.exec(printed)?.[1],
    stop: async () => {
      child.kill('SIGTERM');
      return (await exited).code;
    },
  };
};

interface Write {
  sentAt: number;
  answeredAt: number;
  status: number | undefined;
  body: string;
}

const post = (agent: Agent, url: string, key: string, pet: object) =>
  new Promise<Write>((resolve) => {
    const sentAt = performance.now();
    const answer = (status: number | undefined, body: string) => {
      resolve({ sentAt, answeredAt: performance.now(), status, body });
    };
    const req = request(
      `${url}/v1/pets`,
      { method: 'POST', agent, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' } },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => {
          answer(res.statusCode, body);
        });
        res.on('error', (error) => {
          answer(undefined, String(error));
        });
      },
    );
    req.on('error', (error) => {
      answer(undefined, String(error));
    });
    req.end(JSON.stringify(pet));
  });

describe.runIf(TEST_ENGINE === 'sqlite')('npx pnpm backup, on SQLite', () => {
  it(`copies the live store under ${WRITERS} concurrent writers, none of whose writes fails`, async () => {
    const live = join(folder, 'live.db');
    const copyFile = join(folder, 'copy.db');
    await seedStore(live, SEEDED_ANIMALS);
    const service = await startService({ PETSTORE_DB: live, DATABASE_STATEMENT_TIMEOUT_MS: WRITE_LOCK_WAIT_MS });
    const key = service.firstKey ?? '';

    const agent = new Agent({ keepAlive: true, maxSockets: WRITERS });
    const writes: Write[] = [];
    const acknowledged = new Map<number, Pet>();
    let writing = true;
    let count = 0;
    const writer = async () => {
      while (writing) {
        const index = count++;
        const write = await post(agent, service.url, key, { name: `writer ${index}`, categoryId: 1 + (index % 9), status: index % 2 ? 'sold' : 'pending' });
        writes.push(write);
        if (write.status === 201) {
          const pet = JSON.parse(write.body) as Pet;
          acknowledged.set(pet.id, pet);
        }
      }
    };
    // Another reader holding a snapshot, as a long query would: the service cannot checkpoint
    // past it, so what the writers commit from here on is in the log, not yet in the file. A copy
    // of the file alone would miss every animal acknowledged before the backup began.
    const reader = new BetterSqlite3(live, { readonly: true });
    onTestFinished(() => {
      reader.close();
    });
    reader.exec('begin');
    reader.prepare('select count(*) from pets').get();
    const writers = Promise.all(Array.from({ length: WRITERS }, writer));
    await expect.poll(() => acknowledged.size, { timeout: 30_000, interval: 10 }).toBeGreaterThanOrEqual(ACKS_BEFORE_BACKUP);

    const before = [...acknowledged.values()];
    const backupStarted = performance.now();
    let backupEnded = 0;
    const backingUp = backupFromRoot([copyFile], { PETSTORE_DB: live }).finally(() => {
      backupEnded = performance.now();
    });
    await Promise.race([backingUp, new Promise((resolve) => setTimeout(resolve, WRITING_AT_MOST_MS))]);
    const endedWhileWriting = backupEnded > 0;
    writing = false;
    await writers;
    agent.destroy();
    const backedUp = await backingUp;
    reader.exec('commit');

    expect(endedWhileWriting, 'the backup ended while the writers were still writing').toBe(true);
    expect(backedUp.stderr).toBe('');
    expect(backedUp.code).toBe(0);
    const [, source, target, pages, animals, seconds] = BACKED_UP.exec(backedUp.stdout) ?? [];
    expect([source, target]).toEqual([live, copyFile]);

    // The copy itself ran in the last `seconds` of the command; writes answered then overlapped it.
    const copyStarted = backupEnded - Number(seconds) * 1000;
    const during = writes.filter((write) => write.answeredAt >= backupStarted && write.sentAt <= backupEnded);
    const duringCopy = writes.filter((write) => write.answeredAt >= copyStarted && write.sentAt <= backupEnded && write.status === 201);
    expect(duringCopy.length).toBeGreaterThan(0);
    const failed = writes.filter((write) => write.status !== 201);
    expect(failed.map(({ status, body }) => `${String(status)} ${body}`)).toEqual([]);

    const copy = readCopy(copyFile);
    expect(copy.integrity).toBe('ok');
    expect(copy.pets.size).toBe(Number(animals));
    const missing = before.filter((pet) => JSON.stringify(copy.pets.get(pet.id)) !== JSON.stringify(pet));
    expect(missing).toEqual([]);
    expect(copy.pets.size).toBeGreaterThanOrEqual(SEEDED_ANIMALS + before.length);

    // The copy is a store of its own: the service starts on it (migrations and all), the key
    // it holds is accepted, and it serves every animal acknowledged before the backup began.
    const onCopy = await startService({ PETSTORE_DB: copyFile });
    expect(onCopy.firstKey).toBeUndefined();
    const unserved: number[] = [];
    const queue = [...before];
    const getter = async () => {
      for (let pet = queue.pop(); pet !== undefined; pet = queue.pop()) {
        const response = await fetch(`${onCopy.url}/v1/pets/${String(pet.id)}`, { headers: { Authorization: `Bearer ${key}` } });
        if (JSON.stringify(await response.json()) !== JSON.stringify(pet)) unserved.push(pet.id);
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, getter));
    expect(unserved).toEqual([]);
    expect(await onCopy.stop()).toBe(0);
    expect(await service.stop()).toBe(0);

    const slowest = Math.max(...during.map((write) => write.answeredAt - write.sentAt));
    console.log(
      `backup under ${WRITERS} writers: the copy took ${seconds ?? ''} s (${pages ?? ''} pages, ${animals ?? ''} animals), the command ${((backupEnded - backupStarted) / 1000).toFixed(2)} s; ` +
        `${before.length} animals acknowledged before it began, ${before.length - missing.length} of them in the copy and served from it; ` +
        `${during.length} writes during the command (${duringCopy.length} acknowledged during the copy), ${failed.length} failed, the slowest ${slowest.toFixed(0)} ms`,
    );
  }, WRITING_AT_MOST_MS + 120_000);

  it('refuses a FILE that exists unless told --force, and then replaces it', async () => {
    const live = join(folder, 'live.db');
    await seedStore(live, 10);
    const target = join(folder, 'existing.db');
    writeFileSync(target, 'not a store\n');

    const refused = await backup([target], { PETSTORE_DB: live });
    expect([refused.code, refused.stdout, refused.stderr]).toEqual([1, '', `${target} already exists. Add --force to replace it.\n`]);
    expect(readFileSync(target, 'utf8')).toBe('not a store\n');

    const forced = await backup([target, '--force'], { PETSTORE_DB: live });
    expect([forced.code, forced.stderr]).toEqual([0, '']);
    expect(forced.stdout).toMatch(BACKED_UP);
    const copy = readCopy(target);
    expect([copy.integrity, copy.pets.size]).toEqual(['ok', 10]);
    // Neither leaves a partial file behind.
    expect(readdirSync(folder).sort()).toEqual(['existing.db', 'live.db', 'live.db-shm', 'live.db-wal']);
  });

  it('stops on Ctrl-C while it copies, leaving neither FILE nor a partial file', async () => {
    const live = join(folder, 'live.db');
    await seedStore(live, SEEDED_ANIMALS);
    const target = join(folder, 'copy.db');
    // The bin execs node, so this is the CLI's own process, as a terminal's Ctrl-C reaches it.
    const child = spawnCommand('bin/backup', [target], { PETSTORE_DB: live });
    const finished = collect(child);
    await expect.poll(() => readdirSync(folder).some((name) => name.endsWith('.partial')), { timeout: 30_000, interval: 5 }).toBe(true);
    child.kill('SIGINT');

    const stopped = await finished;
    expect([stopped.code, stopped.stdout, stopped.stderr]).toEqual([130, '', `The backup was stopped; ${target} was not written.\n`]);
    expect(readdirSync(folder).filter((name) => !name.startsWith('live.db'))).toEqual([]);
  });

  it('writes a relative FILE in the folder the command runs in', async () => {
    const live = join(folder, 'live.db');
    await seedStore(live, 10);

    const fromRoot = await backupFromRoot([relative(REPO_ROOT, join(folder, 'from-root.db'))], { PETSTORE_DB: live });
    expect([fromRoot.code, fromRoot.stderr]).toEqual([0, '']);
    expect(existsSync(join(folder, 'from-root.db'))).toBe(true);

    // Run by hand from another folder, whatever INIT_CWD an outer npm or pnpm left behind.
    const byHand = await collect(spawnCommand(join(REPO_ROOT, 'apps/api/bin/backup'), ['by-hand.db'], { PETSTORE_DB: live, INIT_CWD: REPO_ROOT }, folder));
    expect([byHand.code, byHand.stderr]).toEqual([0, '']);
    expect(existsSync(join(folder, 'by-hand.db'))).toBe(true);
  });

  it.for([
    [[], 'backup needs a <file> to write the copy to.'],
    [['--force'], 'backup needs a <file> to write the copy to.'],
    [['a.db', 'b.db'], 'backup takes one <file>, not "a.db" "b.db".'],
    [['copy.db', '--bogus'], "Unknown option '--bogus'."],
    [['--force=yes', 'copy.db'], "Option '--force' does not take an argument."],
  ] as const)('refuses %j with exit code 2, one line saying why, then its usage', async ([args, reason]) => {
    const result = await backup([...args], { PETSTORE_DB: join(folder, 'live.db') });
    expect([result.code, result.stdout]).toEqual([2, '']);
    const [line, blank, ...usage] = result.stderr.split('\n');
    expect([line, blank]).toEqual([reason, '']);
    expect(usage.join('\n')).toMatch(USAGE);
  });

  it('prints its usage for --help and exits 0', async () => {
    const help = await backupFromRoot(['--help'], {});
    expect([help.code, help.stderr]).toEqual([0, '']);
    expect(help.stdout).toMatch(USAGE);
  });

  it.for([
    ['a store only in memory', () => ({ env: { PETSTORE_DB: ':memory:' }, file: 'copy.db', message: /^PETSTORE_DB is :memory:, .*no file to back up\.\n$/ })],
    ['no store at PETSTORE_DB', () => ({ env: { PETSTORE_DB: join(folder, 'absent.db') }, file: 'copy.db', message: /^There is no SQLite store at .*absent\.db\.\n$/ })],
    ['no folder at PETSTORE_DB', () => ({ env: { PETSTORE_DB: join(folder, 'absent', 'petstore.db') }, file: 'copy.db', message: /^There is no SQLite store at .*absent\/petstore\.db\.\n$/ })],
    ['FILE being the store', () => ({ env: { PETSTORE_DB: join(folder, 'live.db') }, file: 'live.db', message: /^.*live\.db is the live store itself\.\n$/ })],
    ...(['-wal', '-shm', '-journal'] as const).map((side) => [
      `FILE being the store's ${side} file`,
      () => ({ env: { PETSTORE_DB: join(folder, 'live.db') }, file: `live.db${side}`, message: new RegExp(`^.*live\\.db${side} is the live store's ${side} file, part of the store itself\\.\\n$`) }),
    ] as const),
    ['no folder for FILE', () => ({ env: { PETSTORE_DB: join(folder, 'live.db') }, file: 'missing/copy.db', message: /^There is no folder .*missing\.\n$/ })],
    ['a log beside FILE', () => ({ env: { PETSTORE_DB: join(folder, 'live.db') }, file: 'logged.db', message: /^.*logged\.db-wal exists: .*\.\n$/ })],
  ] as const)('refuses %s with exit code 1 and one line, writing nothing', async ([, refusal]) => {
    const { env, file, message } = refusal();
    await seedStore(join(folder, 'live.db'), 10);
    writeFileSync(join(folder, 'logged.db-wal'), '');
    const before = readdirSync(folder).sort();

    const result = await backup([join(folder, file)], env);
    expect([result.code, result.stdout]).toEqual([1, '']);
    expect(result.stderr).toMatch(message);
    // Nothing created: no copy, no partial file, and no empty store at a mistyped PETSTORE_DB.
    expect(readdirSync(folder).sort()).toEqual(before);
  });
});

describe.runIf(TEST_ENGINE === 'postgres')('npx pnpm backup, on PostgreSQL', () => {
  it('refuses, naming pg_dump, and writes nothing', async ({ storage }) => {
    const target = join(folder, 'copy.db');
    const refused = await backup([target], storage.env);
    expect([refused.code, refused.stdout]).toEqual([1, '']);
    expect(refused.stderr).toMatch(/^The store is on PostgreSQL \(DATABASE_URL is set\), .*pg_dump.*\n$/);
    expect(readdirSync(folder)).toEqual([]);
  });
});
