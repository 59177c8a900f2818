import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Config, variableOf } from './config.js';

/**
 * Which store the settings name, as an operator tells two apart: PostgreSQL's host, port, database
 * and user (never the password), or SQLite's file as an absolute path. The keys command says it on
 * every run, so a key made on the wrong store is noticed.
 */
export const describeStore = ({ databaseUrl, databaseFile }: Pick<Config, 'databaseUrl' | 'databaseFile'>): string => {
  if (databaseUrl !== undefined) {
    const url = new URL(databaseUrl);
    // A socket folder may come as `?host=`; the URL's host is then empty.
    const host = url.host === '' ? (url.searchParams.get('host') ?? 'localhost') : url.host;
    const user = decodeURIComponent(url.username);
    // pg, as libpq, takes the user's name for a database the URL does not name.
    const database = decodeURIComponent(url.pathname.slice(1)) || user || 'postgres';
    return `PostgreSQL database ${database} on ${host}${user === '' ? '' : ` as ${user}`} (${variableOf('databaseUrl')})`;
  }
  // Said whenever SQLite is used: a shell that lacks DATABASE_URL is the usual way to reach the wrong store.
  const unset = `${variableOf('databaseUrl')} unset`;
  if (databaseFile === ':memory:') return `SQLite in memory (${variableOf('databaseFile')}=:memory:, ${unset})`;
  const file = resolve(databaseFile);
  return `SQLite file ${file} (${unset}${existsSync(file) ? '' : '; no store was there: a new one is made'})`;
};
