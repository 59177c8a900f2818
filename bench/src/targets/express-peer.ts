// What a user would write instead: the same operations as plain Express 5 routes, with the same
// zod schemas, the same key check (the one key held in memory) and the same storage queries as the
// other peers, and no tRPC or OpenAPI layer.
import { type AddressInfo } from 'node:net';
import { GetPetParams, ListPetsQuery, NewPet, openSqliteDatabase } from '@petstore/core';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { CHALLENGE, holdsKey } from './held-key.js';
import { peerErrorBody, GET_PET_DEPRECATION_HEADERS } from './peer-replies.js';
import { peerPage } from './peer-page.js';
import { announceReady, databaseFile } from './ready.js';

const db = openSqliteDatabase(databaseFile());
const app = express();
app.disable('x-powered-by');

const fail = (res: express.Response, status: number, code: string, message: string) => {
  res.status(status).json({ code, message, status });
};

const requireKey: RequestHandler = (req, res, next) => {
  if (holdsKey(req.headers.authorization)) {
    next();
    return;
  }
  res.set(CHALLENGE);
  fail(res, 401, 'UNAUTHORIZED', 'Invalid API key.');
};

app.use('/v1', requireKey);

app.get('/v1/pets', async (req, res) => {
  const query = ListPetsQuery.safeParse(req.query);
  if (!query.success) {
    fail(res, 400, 'BAD_REQUEST', query.error.message);
    return;
  }
  const { limit, status, cursor } = query.data;
  const rows = await db.pets.page({ afterId: cursor ?? 0, status, take: limit + 1 });
  const { items, link } = peerPage(rows, query.data);
  if (link) res.setHeader('Link', link);
  res.json(items);
});

app.post('/v1/pets', express.json({ limit: '64kb' }), async (req, res) => {
  if (!req.is('application/json')) {
    fail(res, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.');
    return;
  }
  const body = NewPet.safeParse(req.body);
  if (!body.success) {
    fail(res, 400, 'BAD_REQUEST', body.error.message);
    return;
  }
  const pet = await db.pets.insert(body.data);
  res.status(201).setHeader('Location', `/v1/pets/${pet.id}`).json(pet);
});

app.get('/v1/pets/:petId', async (req, res) => {
  const params = GetPetParams.safeParse(req.params);
  if (!params.success) {
    fail(res, 400, 'BAD_REQUEST', params.error.message);
    return;
  }
  const pet = await db.pets.findById(params.data.petId);
  if (!pet) {
    fail(res, 404, 'NOT_FOUND', `No animal has id ${params.data.petId}.`);
    return;
  }
  res.set(GET_PET_DEPRECATION_HEADERS);
  res.json(pet);
});

app.use((_req, res) => {
  fail(res, 404, 'NOT_FOUND', 'No such path.');
});

// Express's own refusals (malformed JSON, a body too large) carry their status; without this
// handler they would be answered with Express's HTML page.
const answerError: ErrorRequestHandler = (error: { status?: unknown; message?: unknown }, _req, res, next) => {
  // As Express's docs say: once a response has begun, only Express's own handler can end it.
  if (res.headersSent) {
    next(error);
    return;
  }
  const body = peerErrorBody(typeof error.status === 'number' ? error.status : 500, String(error.message));
  res.status(body.status).json(body);
};
app.use(answerError);

const server = app.listen(0, '127.0.0.1', () => {
  announceReady((server.address() as AddressInfo).port);
});
