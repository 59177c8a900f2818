// What a team choosing Fastify would deploy: the routes of fastify-pets.ts with the features the
// service keeps on, each as Fastify's ecosystem provides it: Fastify's own request logging by pino
// to stdout (the production logger of its docs, `level: 'info'`), @fastify/helmet's security
// headers, @fastify/rate-limit counting per key against a quota the load never reaches, with its
// RateLimit headers, @fastify/etag on the reads (a 304 for a matching If-None-Match), the request
// id echoed in X-Request-Id, and `Cache-Control: no-store`. Against it, the service's figures read
// what a user choosing between the two would see.
import etag from '@fastify/etag';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import { openSqliteDatabase } from '@petstore/core';
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { listenAndAnnounce, petReads, petWrites, requireKey, zodFastify } from './fastify-pets.js';
import { databaseFile } from './ready.js';
import { UNREACHED_QUOTA_PER_MINUTE } from './unreached-quota.js';

/**
 * One access line per request, as the service writes: Fastify's line for an answered request,
 * with the request beside the answer; its line on arrival goes to debug, as its docs' example of a
 * LogController does.
 */
class AccessLine extends LogController {
  override incomingRequest(request: FastifyRequest) {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    const fields = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request completed');
  }
}

const db = openSqliteDatabase(databaseFile());
const app = zodFastify({ logger: { level: 'info' }, logController: new AccessLine(), requestIdHeader: 'x-request-id' });
await app.register(helmet);
app.addHook('onSend', async (request, reply, payload) => {
  reply.header('X-Request-Id', request.id).header('Cache-Control', 'no-store');
  return payload;
});
await app.register(
  async (v1) => {
    v1.addHook('onRequest', requireKey);
    // Its hook joins each route's own, which run after this instance's: a request is counted once
    // its key is known to be held, against that key.
    await v1.register(rateLimit, {
      max: UNREACHED_QUOTA_PER_MINUTE,
      timeWindow: 60_000,
      keyGenerator: (request) => request.headers.authorization ?? '',
      enableDraftSpec: true,
    });
    await v1.register(async (reads) => {
      await reads.register(etag);
      await reads.register(petReads(db));
    });
    await v1.register(petWrites(db));
  },
  { prefix: '/v1' },
);
await listenAndAnnounce(app);
