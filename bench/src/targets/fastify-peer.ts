// What a user would write with Fastify instead, with nothing else on: the routes of fastify-pets.ts,
// the logger off, no plugins, and no tRPC or OpenAPI layer. Against it, the service's figures read
// what the framework's own cost is, with nothing on.
import { openSqliteDatabase } from '@petstore/core';
import { listenAndAnnounce, petReads, petWrites, requireKey, zodFastify } from './fastify-pets.js';
import { databaseFile } from './ready.js';

const db = openSqliteDatabase(databaseFile());
const app = zodFastify({ logger: false });
await app.register(
  async (v1) => {
    v1.addHook('onRequest', requireKey);
    await v1.register(petReads(db));
    await v1.register(petWrites(db));
  },
  { prefix: '/v1' },
);
await listenAndAnnounce(app);
