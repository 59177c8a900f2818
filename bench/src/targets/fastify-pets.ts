// The pet operations as Fastify 5 routes, the way its docs and fastify-type-provider-zod's
// recommend (zod schemas for the query, params, body and responses, compiled by the type provider;
// the key check in an onRequest hook), with the same key check (the one key held in memory) and
// storage queries as the other peers. Both Fastify peers serve these: one with nothing else on, one
// with the features the service keeps on.
import { type AddressInfo } from 'node:net';
import { type Database, ErrorBody, GetPetParams, ListPetsQuery, NewPet, Pet, Pets } from '@petstore/core';
import Fastify, { type FastifyError, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import {
  type FastifyPluginAsyncZod,
  type ZodTypeProvider,
  hasZodFastifySchemaValidationErrors,
  serializerCompiler,
  validatorCompiler,
} from 'fastify-type-provider-zod';
import { CHALLENGE, holdsKey } from './held-key.js';
import { peerErrorBody, GET_PET_DEPRECATION_HEADERS } from './peer-replies.js';
import { peerPage } from './peer-page.js';
import { announceReady } from './ready.js';

const fail = (reply: FastifyReply, status: number, message: string) => {
  const body = peerErrorBody(status, message);
  return reply.code(body.status).send(body);
};

/** A Fastify app with zod's type provider, answering every refusal with the contract's Error body. */
export const zodFastify = (options: FastifyServerOptions) => {
  const app = Fastify({ ...options, bodyLimit: 64 * 1024 }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // Bodies are JSON only: any other content type gets Fastify's own 415.
  app.removeContentTypeParser('text/plain');
  app.setErrorHandler<FastifyError>((error, _request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error)) return fail(reply, 400, error.message);
    // Fastify's own refusals (malformed JSON, body too large, wrong content type) and its
    // plugins' (a quota spent) carry their status.
    return fail(reply, error.statusCode ?? 500, error.message);
  });
  app.setNotFoundHandler((_request, reply) => fail(reply, 404, 'No such path.'));
  return app;
};

/** The key check, as an onRequest hook of the routes under `/v1`. */
export const requireKey = async (request: FastifyRequest, reply: FastifyReply) => {
  if (holdsKey(request.headers.authorization)) return;
  reply.headers(CHALLENGE);
  return fail(reply, 401, 'Invalid API key.');
};

/** The two reads: a page of animals, and one animal by its id. */
export const petReads =
  (db: Database): FastifyPluginAsyncZod =>
  async (app) => {
    app.get('/pets', { schema: { querystring: ListPetsQuery, response: { 200: Pets, '4xx': ErrorBody } } }, async (request, reply) => {
      const { limit, status, cursor } = request.query;
      const rows = await db.pets.page({ afterId: cursor ?? 0, status, take: limit + 1 });
      const { items, link } = peerPage(rows, request.query);
      if (link) reply.header('Link', link);
      return items;
    });

    app.get('/pets/:petId', { schema: { params: GetPetParams, response: { 200: Pet, '4xx': ErrorBody } } }, async (request, reply) => {
      const pet = await db.pets.findById(request.params.petId);
      if (!pet) return fail(reply, 404, `No animal has id ${request.params.petId}.`);
      reply.headers(GET_PET_DEPRECATION_HEADERS);
      return pet;
    });
  };

/** The one write: a new animal. */
export const petWrites =
  (db: Database): FastifyPluginAsyncZod =>
  async (app) => {
    app.post('/pets', { schema: { body: NewPet, response: { 201: Pet, '4xx': ErrorBody } } }, async (request, reply) => {
      const pet = await db.pets.insert(request.body);
      return reply.code(201).header('Location', `/v1/pets/${pet.id}`).send(pet);
    });
  };

/** Listens on a free port of 127.0.0.1 and tells the bench which. */
export const listenAndAnnounce = async (app: ReturnType<typeof zodFastify>) => {
  await app.listen({ port: 0, host: '127.0.0.1' });
  announceReady((app.server.address() as AddressInfo).port);
};
