import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { refuseWithout } from './sqlite-only.js';

/** The server tests use; its database is only ever used to create and drop scratch databases. */
export const TEST_POSTGRES_URL = process.env.PETSTORE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A new, empty database on the test server, so no two runs or tests ever see each other's data. */
export const createScratchPostgresDatabase = async (): Promise<ScratchDatabase> => {
  refuseWithout('PostgreSQL');
  const name = `petstore_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const dropper = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await dropper.connect();
      try {
        await dropper.query(`drop database if exists ${name} with (force)`);
      } finally {
        await dropper.end();
      }
    },
  };
};
