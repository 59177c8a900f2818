import { randomBytes } from 'node:crypto';
import { type Stats, closeSync, existsSync, fsyncSync, linkSync, lstatSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { getTableName } from 'drizzle-orm';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from '../../storage/timeouts.js';
import { pets } from './schema.js';

/**
 * Pages copied per step (4 MiB at SQLite's default page size). Between steps the process returns to its event loop, so a backup asked to stop (Ctrl-C) stops
 * soon and removes its partial file; much smaller steps spend more time switching than copying.
 * Steps never hold the service up: the copy reads one snapshot, which in WAL mode blocks no writer.
 */
export const BACKUP_PAGES_PER_STEP = 1024;

/** Readable and writable by its owner only. */
const PRIVATE_FILE_MODE = 0o600;

/** Beside a database, SQLite replays these into it when it opens: a stale one would corrupt a new copy. */
const REPLAYED_SIDE_FILES = ['-wal', '-journal'];

/** Every file SQLite may leave beside a database it writes. */
const SIDE_FILES = ['-wal', '-shm', '-journal'];

export type BackupRefusal = 'no-store' | 'same-file' | 'no-folder' | 'not-a-file' | 'exists' | 'in-use' | 'damaged' | 'interrupted';

/** A backup refused or stopped; the message names the file and says why, for a person to read. */
export class BackupError extends Error {
  override name = 'BackupError';
  constructor(
    readonly refusal: BackupRefusal,
    message: string,
  ) {
    super(message);
  }
}

export interface SqliteBackupOptions {
  /** Replace the target when it exists; otherwise an existing target is refused. */
  overwrite?: boolean | undefined;
  /** Stops the backup between two steps; the target is left as it was. */
  signal?: AbortSignal | undefined;
  /** How long to wait for a lock on the live store (SQLite's busy_timeout). */
  timeouts?: DatabaseTimeouts | undefined;
}

export interface SqliteBackup {
  /** The copy's pages, as SQLite counts them. */
  pages: number;
  /** The animals in the copy: every one committed before the backup began. */
  animals: number;
  /** From opening the live store to the copy in place, checked. */
  seconds: number;
}

const countAnimals = (sqlite: BetterSqlite3.Database) => sqlite.prepare(`select count(*) from "${getTableName(pets)}"`).pluck().get() as number;

const sameFile = (a: string, b: string) => {
  if (resolve(a) === resolve(b)) return true;
  if (!existsSync(a) || !existsSync(b)) return false;
  const [first, second] = [statSync(a), statSync(b)];
  return first.dev === second.dev && first.ino === second.ino;
};

/** A rename survives a power cut only once its folder is written to disk too. */
const syncFolder = (folder: string) => {
  const descriptor = openSync(folder, 'r');
  try {
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
};

/** What a path that is not a regular file is, in a refusal's words. */
const kindOf = (stats: Stats) =>
  stats.isDirectory() ? 'a folder' : stats.isSymbolicLink() ? 'a symbolic link' : stats.isFIFO() ? 'a FIFO' : stats.isCharacterDevice() || stats.isBlockDevice() ? 'a device' : stats.isSocket() ? 'a socket' : 'not a file';

const refuseTarget = (source: string, target: string, overwrite: boolean) => {
  if (sameFile(source, target)) throw new BackupError('same-file', `${target} is the live store itself.`);
  // Its side files are the store too: a copy over its log would leave the live store malformed.
  const sideFile = SIDE_FILES.find((suffix) => sameFile(`${source}${suffix}`, target));
  if (sideFile !== undefined) throw new BackupError('same-file', `${target} is the live store's ${sideFile} file, part of the store itself.`);
  const folder = dirname(target);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new BackupError('no-folder', `There is no folder ${folder}.`);
  // Only a regular file is replaced, even with --force: a device, a FIFO, a folder or a link is not a backup's to replace.
  const existing = lstatSync(target, { throwIfNoEntry: false });
  if (existing !== undefined && !existing.isFile()) throw new BackupError('not-a-file', `${target} exists and is not a regular file (${kindOf(existing)}); a backup writes only a new file or replaces one.`);
  if (!overwrite && existing !== undefined) throw new BackupError('exists', `${target} already exists.`);
  const replayed = REPLAYED_SIDE_FILES.map((suffix) => `${target}${suffix}`).find((file) => existsSync(file));
  if (replayed !== undefined) {
    throw new BackupError('in-use', `${replayed} exists: ${target} is in use as a store, or was not closed cleanly, and SQLite would replay that file into the copy.`);
  }
};

/**
 * Copies the SQLite store at `source` to `target` with SQLite's online backup, while other
 * processes keep writing to it. The copy holds every row committed before it began, is checked
 * with `PRAGMA integrity_check`, and appears at `target` whole or not at all.
 */
export const backupSqliteFile = async (source: string, target: string, options: SqliteBackupOptions = {}): Promise<SqliteBackup> => {
  const { overwrite = false, signal, timeouts = DEFAULT_DATABASE_TIMEOUTS } = options;
  const started = performance.now();
  refuseTarget(source, target, overwrite);
  const stopIfAsked = () => {
    if (signal?.aborted === true) throw new BackupError('interrupted', `The backup was stopped; ${target} was not written.`);
  };
  // A signal is handled only when the process is back in its event loop: after work that holds it
  // (the integrity check of a large copy), a turn of the loop lets a Ctrl-C that came meanwhile count.
  const stopIfAskedMeanwhile = async () => {
    await nextTurn();
    stopIfAsked();
  };

  // A mistyped path must not become an empty store that is then backed up.
  if (!existsSync(source)) throw new BackupError('no-store', `There is no SQLite store at ${source}.`);
  // Read-only: the backup can never change the live store.
  const live = new BetterSqlite3(source, { readonly: true, fileMustExist: true });
  // Beside the target: the copy is put in place by a rename or a link, which work within one file system.
  const partial = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.partial`);
  try {
    live.pragma(`busy_timeout = ${timeouts.statementMs}`);
    // One read transaction for the whole backup: SQLite restarts a backup from its first page
    // whenever another connection writes between two steps, which under steady writes never
    // finishes. Holding a snapshot, every step reads the same database, and in WAL mode the
    // service's writes go on meanwhile, into a log that cannot be checkpointed past the snapshot
    // until it is released.
    live.exec('begin');
    // A deferred transaction takes its snapshot at its first read.
    countAnimals(live);
    // The copy holds key hashes and the audit trail: it is its owner's alone from its first byte,
    // whatever the umask, and so is every file SQLite makes beside it (it takes the store's mode).
    closeSync(openSync(partial, 'wx', PRIVATE_FILE_MODE));
    const { totalPages } = await live.backup(partial, {
      progress: () => {
        stopIfAsked();
        return BACKUP_PAGES_PER_STEP;
      },
    });
    live.exec('commit');
    live.close();
    await stopIfAskedMeanwhile();

    const copy = new BetterSqlite3(partial, { fileMustExist: true });
    let animals: number;
    try {
      // The copy carries the live store's WAL flag; a rollback journal makes it one self-contained
      // file that opens even read-only. The service turns WAL back on when it starts on it.
      copy.pragma('journal_mode = DELETE');
      const integrity = copy.pragma('integrity_check', { simple: true }) as string;
      if (integrity !== 'ok') throw new BackupError('damaged', `The copy failed SQLite's integrity_check (${integrity}); ${target} was not written.`);
      animals = countAnimals(copy);
    } finally {
      copy.close();
    }
    await stopIfAskedMeanwhile();

    if (overwrite) {
      renameSync(partial, target);
    } else {
      // A link, unlike a rename, fails on a target that appeared while the copy was made.
      try {
        linkSync(partial, target);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new BackupError('exists', `${target} already exists.`);
        throw error;
      }
    }
    syncFolder(dirname(target));
    return { pages: totalPages, animals, seconds: (performance.now() - started) / 1000 };
  } finally {
    if (live.open) live.close();
    for (const file of [partial, ...SIDE_FILES.map((suffix) => `${partial}${suffix}`)]) rmSync(file, { force: true });
  }
};
