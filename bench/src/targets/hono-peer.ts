// What a user would write with Hono instead: the same operations declared with createRoute and
// served by OpenAPIHono, as @hono/zod-openapi's docs recommend (zod schemas for the query, params,
// body and responses; validation failures answered by the app's defaultHook; the key check as
// middleware), on @hono/node-server, with the same key check (the one key held in memory) and
// storage queries as the other peers, no logger, and no tRPC layer.
import { serve } from '@hono/node-server';
import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import { ErrorBody, GetPetParams, ListPetsQuery, NewPet, Pet, Pets, openSqliteDatabase } from '@petstore/core';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { CHALLENGE, holdsKey } from './held-key.js';
import { peerErrorBody, GET_PET_DEPRECATION_HEADERS } from './peer-replies.js';
import { peerPage } from './peer-page.js';
import { announceReady, databaseFile } from './ready.js';

const db = openSqliteDatabase(databaseFile());

const json = <Schema>(schema: Schema, description: string) => ({ content: { 'application/json': { schema } }, description });
const failures = {
  400: json(ErrorBody, 'The request is invalid.'),
  401: json(ErrorBody, 'No valid API key.'),
};

const listPets = createRoute({
  method: 'get',
  path: '/v1/pets',
  // The object inside core's schema: a query is always an object here (`{}` when empty), and
  // createRoute lays out parameters from an object's fields.
  request: { query: ListPetsQuery.unwrap() },
  responses: { 200: json(Pets, 'A page of animals; `Link` names the next.'), ...failures },
});

const createPet = createRoute({
  method: 'post',
  path: '/v1/pets',
  middleware: [
    bodyLimit({
      maxSize: 64 * 1024,
      onError: (c) => c.json(peerErrorBody(413, 'The body is larger than 64 KiB.'), 413),
    }),
  ] as const,
  request: { body: { ...json(NewPet, 'The animal to add.'), required: true } },
  responses: { 201: json(Pet, 'The animal as stored; `Location` names it.'), ...failures },
});

const getPet = createRoute({
  method: 'get',
  path: '/v1/pets/{petId}',
  request: { params: GetPetParams },
  responses: {
    200: json(Pet, 'The animal; this operation is deprecated.'),
    ...failures,
    404: json(ErrorBody, 'No animal has this id.'),
  },
});

const app = new OpenAPIHono({
  defaultHook: (result, c) => {
    if (!result.success) return c.json(peerErrorBody(400, result.error.message), 400);
  },
});

app.use('/v1/*', async (c, next) => {
  if (holdsKey(c.req.header('authorization'))) {
    await next();
    return;
  }
  return c.json(peerErrorBody(401, 'Invalid API key.'), 401, CHALLENGE);
});

app.openapi(listPets, async (c) => {
  const query = c.req.valid('query');
  const rows = await db.pets.page({ afterId: query.cursor ?? 0, status: query.status, take: query.limit + 1 });
  const { items, link } = peerPage(rows, query);
  if (link) c.header('Link', link);
  return c.json(items, 200);
});

app.openapi(createPet, async (c) => {
  const pet = await db.pets.insert(c.req.valid('json'));
  return c.json(pet, 201, { Location: `/v1/pets/${pet.id}` });
});

app.openapi(getPet, async (c) => {
  const { petId } = c.req.valid('param');
  const pet = await db.pets.findById(petId);
  if (!pet) return c.json(peerErrorBody(404, `No animal has id ${petId}.`), 404);
  for (const [name, value] of Object.entries(GET_PET_DEPRECATION_HEADERS)) c.header(name, value);
  return c.json(pet, 200);
});

// Hono's own refusals (malformed JSON, a body that is not JSON) are HTTPExceptions with their status.
app.onError((error, c) => {
  const body = peerErrorBody(error instanceof HTTPException ? error.status : 500, error.message);
  return c.json(body, body.status as 400);
});
app.notFound((c) => c.json(peerErrorBody(404, 'No such path.'), 404));

serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  announceReady(info.port);
});
