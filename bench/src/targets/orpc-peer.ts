// What a user would write with oRPC instead: the same operations as procedures with an OpenAPI
// route each, served by @orpc/openapi's OpenAPIHandler on node:http, as oRPC's docs recommend (zod
// schemas through Standard Schema for input and output; the key check as middleware; headers
// through the ResponseHeadersPlugin; the body capped by the BodyLimitPlugin; errors as ORPCError,
// encoded as the contract's Error body), with the same key check (the one key held in memory)
// and storage queries as the other peers, no logger, and no tRPC layer.
import { type IncomingHttpHeaders, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { OpenAPIHandler } from '@orpc/openapi/node';
import { ORPCError, os } from '@orpc/server';
import { BodyLimitPlugin } from '@orpc/server/node';
import { ResponseHeadersPlugin, type ResponseHeadersPluginContext } from '@orpc/server/plugins';
import { GetPetParams, ListPetsQuery, NewPet, Pet, Pets, openSqliteDatabase } from '@petstore/core';
import { CHALLENGE, holdsKey } from './held-key.js';
import { peerErrorBody, GET_PET_DEPRECATION_HEADERS } from './peer-replies.js';
import { peerPage } from './peer-page.js';
import { announceReady, databaseFile } from './ready.js';

const db = openSqliteDatabase(databaseFile());

const authed = os
  .$context<{ headers: IncomingHttpHeaders } & ResponseHeadersPluginContext>()
  .use(({ context, next }) => {
    if (holdsKey(context.headers.authorization)) return next();
    for (const [name, value] of Object.entries(CHALLENGE)) context.resHeaders?.set(name, value);
    throw new ORPCError('UNAUTHORIZED', { message: 'Invalid API key.' });
  });

const router = {
  listPets: authed
    .route({ method: 'GET', path: '/pets' })
    .input(ListPetsQuery)
    .output(Pets)
    .handler(async ({ input, context }) => {
      const rows = await db.pets.page({ afterId: input.cursor ?? 0, status: input.status, take: input.limit + 1 });
      const { items, link } = peerPage(rows, input);
      if (link) context.resHeaders?.set('Link', link);
      return items;
    }),
  createPet: authed
    .route({ method: 'POST', path: '/pets', successStatus: 201 })
    .input(NewPet)
    .output(Pet)
    .handler(async ({ input, context }) => {
      const pet = await db.pets.insert(input);
      context.resHeaders?.set('Location', `/v1/pets/${pet.id}`);
      return pet;
    }),
  getPet: authed
    .route({ method: 'GET', path: '/pets/{petId}' })
    .input(GetPetParams)
    .output(Pet)
    .handler(async ({ input, context }) => {
      const pet = await db.pets.findById(input.petId);
      if (!pet) throw new ORPCError('NOT_FOUND', { message: `No animal has id ${input.petId}.` });
      for (const [name, value] of Object.entries(GET_PET_DEPRECATION_HEADERS)) context.resHeaders?.set(name, value);
      return pet;
    }),
};

const handler = new OpenAPIHandler(router, {
  plugins: [new ResponseHeadersPlugin(), new BodyLimitPlugin({ maxBodySize: 64 * 1024 })],
  customErrorResponseBodyEncoder: (error) => peerErrorBody(error.status, error.message),
});

const server = createServer((req, res) => {
  void handler.handle(req, res, { prefix: '/v1', context: { headers: req.headers } }).then(({ matched }) => {
    if (matched) return;
    res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify(peerErrorBody(404, 'No such path.')));
  });
});
server.listen(0, '127.0.0.1', () => {
  announceReady((server.address() as AddressInfo).port);
});
