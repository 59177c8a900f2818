import { type ApiKeyScope, createApiKeys, openDatabase } from '@petstore/core';

let made = 0;

/**
 * A new API key in the SQLite store a service process runs on (`storageEnv` as the test's storage
 * fixture gives it), made as `npx pnpm keys create` makes one: for tests whose service did not
 * print a first key, or that need several. Each gets a name of its own.
 */
export const createKeys = async (storageEnv: Record<string, string>, count: number, scopes?: ApiKeyScope[]): Promise<string[]> => {
  const db = await openDatabase({ sqliteFile: storageEnv.PETSTORE_DB ?? '', url: storageEnv.DATABASE_URL });
  try {
    const keys = createApiKeys(db.apiKeys);
    const tokens: string[] = [];
    for (let index = 0; index < count; index++) tokens.push((await keys.create(`test-key-${String(made++)}`, { scopes })).token);
    return tokens;
  } finally {
    await db.close();
  }
};
