import type { Pet } from '@petstore/core';
import { describe, expect } from 'vitest';
import { type TestServer, it } from '../src/testing/index.js';
import { call, expectError, petsCount, rawRequest } from './support/http.js';

const post = (server: TestServer, json: unknown) => call(server, '/v1/pets', { method: 'POST', json });

/** A JSON body of exactly `size` bytes: a valid pet padded with spaces, which JSON ignores. */
const bodyOfSize = (size: number) => {
  const json = JSON.stringify({ name: 'Padded', categoryId: 1 });
  return json.slice(0, -1) + ' '.repeat(size - json.length) + '}';
};

describe('createPet', () => {
  it('answers 201 with the Pet, its id, and its Location', async ({ server }) => {
    const response = await post(server, { name: 'Rex', categoryId: 3, status: 'pending' });
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const pet = (await response.json()) as Pet;
    expect(pet).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 3, status: 'pending' });
    expect(response.headers.get('location')).toBe(`/v1/pets/${pet.id}`);
    expect(await (await call(server, `/v1/pets/${pet.id}`)).json()).toEqual(pet);
  });

  it('defaults status to available and stores the name trimmed', async ({ server }) => {
    const pet = (await (await post(server, { name: '\t Rex  ', categoryId: 1 })).json()) as Pet;
    expect(pet).toMatchObject({ name: 'Rex', status: 'available' });
  });

  it('gives positive ids that increase in creation order', async ({ server }) => {
    const ids: number[] = [];
    for (let index = 0; index < 5; index++) ids.push(((await (await post(server, { name: `p${index}`, categoryId: 1 })).json()) as Pet).id);
    expect(ids[0]).toBeGreaterThan(0);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(5);
  });

  it('keeps any Unicode name of up to 255 code points that reads as it is as sent', async ({ server }) => {
    for (const name of ['🐕'.repeat(255), 'Ünïcødé 名前 🐈‍⬛', 'a'.repeat(255), 'line\u2028separated ❤\ufe0f', 'می\u200cخواهم', 'Zoe\u0308']) {
      const response = await post(server, { name, categoryId: 1 });
      expect(response.status).toBe(201);
      expect(((await response.json()) as Pet).name).toBe(name);
    }
  });

  it('accepts categoryId up to 2^53 - 1', async ({ server }) => {
    const pet = (await (await post(server, { name: 'Big', categoryId: 2 ** 53 - 1 })).json()) as Pet;
    expect(pet.categoryId).toBe(2 ** 53 - 1);
  });

  it('accepts application/json with a charset parameter', async ({ server }) => {
    const response = await call(server, '/v1/pets', {
      method: 'POST',
      body: JSON.stringify({ name: 'Charset', categoryId: 1 }),
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
    });
    expect(response.status).toBe(201);
  });
});

describe('createPet refuses bad input and stores nothing', () => {
  let before: number;
  it.beforeAll(async ({ server }) => {
    before = await petsCount(server);
  });
  it.afterAll(async ({ server }) => {
    expect(await petsCount(server)).toBe(before);
  });

  it.for<[string, unknown, string, string[] | undefined]>([
    ['no name', { categoryId: 1 }, 'name', ['name']],
    ['no categoryId', { name: 'Rex' }, 'categoryId', ['categoryId']],
    ['an empty name', { name: '', categoryId: 1 }, 'name', ['name']],
    ['a blank name', { name: '  \n ', categoryId: 1 }, 'name', ['name']],
    ['a name of 256 code points', { name: '🐕'.repeat(256), categoryId: 1 }, 'name', ['name']],
    ['a name with a lone surrogate', { name: 'Rex\uD83D', categoryId: 1 }, 'name', ['name']],
    ['a name with a NUL character', { name: 'Rex\u0000', categoryId: 1 }, 'name', ['name']],
    ['a name with a control character', { name: 'Re\u0001x', categoryId: 1 }, 'name', ['name']],
    ['a name with a tab inside', { name: 'tab\tinside', categoryId: 1 }, 'name', ['name']],
    ['a name with a right-to-left override', { name: 'Rex\u202egpj.exe', categoryId: 1 }, 'bidirectional controls', ['name']],
    ['a name of a zero-width space', { name: '\u200b', categoryId: 1 }, 'invisible characters', ['name']],
    ['a name of a Hangul filler', { name: '\u3164', categoryId: 1 }, 'invisible characters', ['name']],
    ['a name with a zero-width space inside', { name: 'Re\u200bx', categoryId: 1 }, 'invisible characters', ['name']],
    ['a number as name', { name: 42, categoryId: 1 }, 'name', ['name']],
    ['categoryId as a string', { name: 'Rex', categoryId: '5' }, 'categoryId', ['categoryId']],
    ['categoryId as a boolean', { name: 'Rex', categoryId: true }, 'categoryId', ['categoryId']],
    ['categoryId as null', { name: 'Rex', categoryId: null }, 'categoryId', ['categoryId']],
    ['categoryId as an array', { name: 'Rex', categoryId: [5] }, 'categoryId', ['categoryId']],
    ['a fractional categoryId', { name: 'Rex', categoryId: 1.5 }, 'categoryId', ['categoryId']],
    ['categoryId 0', { name: 'Rex', categoryId: 0 }, 'categoryId', ['categoryId']],
    ['a negative categoryId', { name: 'Rex', categoryId: -1 }, 'categoryId', ['categoryId']],
    ['categoryId 2^53', { name: 'Rex', categoryId: 2 ** 53 }, 'categoryId', ['categoryId']],
    ['an unknown status', { name: 'Rex', categoryId: 1, status: 'lost' }, 'status', ['status']],
    ['status as null', { name: 'Rex', categoryId: 1, status: null }, 'status', ['status']],
    ['an id', { id: 7, name: 'Rex', categoryId: 1 }, '"id"', []],
    ['an unknown field', { name: 'Rex', categoryId: 1, colour: 'brown' }, '"colour"', []],
    ['an array', [{ name: 'Rex', categoryId: 1 }], 'JSON object', undefined],
  ])('refuses %s with 400, naming the field in the message and in the list of issues', async ([, json, mentioned, path], { server }) => {
    const body = await expectError(await post(server, json), 400, 'BAD_REQUEST');
    expect(body.message).toContain(mentioned);
    // An unknown field is named in the message of an issue at the body itself; a body that is no object has no fields.
    if (path === undefined) expect(body.issues).toBeUndefined();
    else expect(body.issues).toContainEqual({ path, message: path.length > 0 ? expect.any(String) : expect.stringContaining(mentioned) });
  });

  it.for<[string, string, string]>([
    ['malformed JSON', '{"name": "Rex",', 'The body is not valid JSON.'],
    ['a JSON string', '"Rex"', 'The body must be a JSON object, not a string.'],
    ['a number beyond any double', '{"name": "Rex", "categoryId": 1e309}', 'categoryId'],
    ['an empty body', '', 'name'],
    // Valid JSON, but not an object: said so, not called malformed.
    ['null', 'null', 'The body must be a JSON object, not null.'],
  ])('refuses %s with 400, saying what is wrong', async ([, body, said], { server }) => {
    const response = await call(server, '/v1/pets', { method: 'POST', body, headers: { 'Content-Type': 'application/json' } });
    expect((await expectError(response, 400, 'BAD_REQUEST')).message).toContain(said);
  });

  it.for<[string, string | undefined]>([
    ['no Content-Type', undefined],
    ['text/plain', 'text/plain'],
    ['form encoding', 'application/x-www-form-urlencoded'],
    ['a JSON-like type', 'application/merge-patch+json'],
    ['a non-UTF charset', 'application/json; charset=latin1'],
  ])('refuses %s with 415', async ([, contentType], { server }) => {
    const response = await rawRequest(server.url, {
      path: '/v1/pets',
      headers: { Authorization: `Bearer ${server.apiKey}`, ...(contentType && { 'Content-Type': contentType }) },
      chunks: [JSON.stringify({ name: 'Rex', categoryId: 1 })],
    });
    expect(response.status).toBe(415);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 });
  });

  const headers = (server: TestServer) => ({ Authorization: `Bearer ${server.apiKey}`, 'Content-Type': 'application/json' });

  it('refuses a body one byte over 64 KiB with 413', async ({ server }) => {
    const response = await rawRequest(server.url, { path: '/v1/pets', headers: headers(server), chunks: [bodyOfSize(64 * 1024 + 1)] });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: expect.any(String), status: 413 });
  });

  it('refuses an oversized body sent in chunks, without a length, with 413', async ({ server }) => {
    const chunk = ' '.repeat(8 * 1024);
    const response = await rawRequest(server.url, {
      path: '/v1/pets',
      headers: headers(server),
      chunks: ['{"name": "Rex", "categoryId": 1', ...Array.from({ length: 9 }, () => chunk), '}'],
    });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
  });
});

describe('the 64 KiB limit', () => {
  it('accepts a body of exactly 64 KiB', async ({ server }) => {
    const response = await rawRequest(server.url, {
      path: '/v1/pets',
      headers: { Authorization: `Bearer ${server.apiKey}`, 'Content-Type': 'application/json' },
      chunks: [bodyOfSize(64 * 1024)],
    });
    expect(response.status).toBe(201);
  });
});
