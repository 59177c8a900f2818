// What both bare servers share: node:http alone, the same contract subset as the service (key
// check against the one key held in memory, validation, statuses, headers), no framework and no
// library. Each bare server brings its storage: better-sqlite3 or pg, the service's statements.
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { CHALLENGE, holdsKey } from './held-key.js';
import { GET_PET_DEPRECATION_HEADERS } from './peer-replies.js';
import { announceReady } from './ready.js';

export interface BarePet {
  id: number;
}

export interface BareStorage {
  /** Up to `take` animals after `afterId`, of `status` when it is not null. */
  page(afterId: number, take: number, status: string | null): BarePet[] | Promise<BarePet[]>;
  byId(id: number): BarePet | undefined | Promise<BarePet | undefined>;
  insert(name: string, categoryId: number, status: string): BarePet | Promise<BarePet>;
}

const STATUSES = new Set(['available', 'pending', 'sold']);
const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));
};
const fail = (res: ServerResponse, status: number, code: string, headers: Record<string, string> = {}) => {
  send(res, status, { code, message: code, status }, headers);
};

const readBody = (req: IncomingMessage) =>
  new Promise<string | undefined>((resolve) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > 65_536) resolve(undefined);
    });
    req.on('end', () => {
      resolve(body);
    });
  });

const positiveInt = (text: string | null, max: number) =>
  text !== null && /^[1-9][0-9]*$/.test(text) && Number(text) <= max ? Number(text) : undefined;

/** Serves the contract subset on 127.0.0.1 and a free port, and tells the bench which. */
export const serveBare = (storage: BareStorage) => {
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (!holdsKey(req.headers.authorization)) {
      fail(res, 401, 'UNAUTHORIZED', CHALLENGE);
      return;
    }
    const [path = '', search = ''] = (req.url ?? '').split('?');
    if (path === '/v1/pets' && req.method === 'GET') {
      const query = new URLSearchParams(search);
      const limit = query.has('limit') ? positiveInt(query.get('limit'), 100) : 20;
      const status = query.get('status');
      const cursor = query.get('cursor');
      const afterId = cursor === null ? 0 : positiveInt(/^after:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString())?.[1] ?? null, Number.MAX_SAFE_INTEGER);
      if (limit === undefined || afterId === undefined || (status !== null && !STATUSES.has(status))) {
        fail(res, 400, 'BAD_REQUEST');
        return;
      }
      const rows = await storage.page(afterId, limit + 1, status);
      const pets = rows.slice(0, limit);
      const last = pets.at(-1);
      const headers: Record<string, string> = {};
      if (rows.length > limit && last) {
        const next = new URLSearchParams({ limit: String(limit), ...(status !== null && { status }), cursor: Buffer.from(`after:${String(last.id)}`).toString('base64url') });
        headers.Link = `</v1/pets?${next.toString()}>; rel="next"`;
      }
      send(res, 200, pets, headers);
    } else if (path === '/v1/pets' && req.method === 'POST') {
      const text = await readBody(req);
      let body: { name?: unknown; categoryId?: unknown; status?: unknown } | undefined;
      try {
        body = text === undefined ? undefined : (JSON.parse(text) as typeof body);
      } catch {
        body = undefined;
      }
      const name = typeof body?.name === 'string' ? body.name.trim() : '';
      const status = body?.status ?? 'available';
      const categoryId = body?.categoryId;
      if (!name || Array.from(name).length > 255 || typeof categoryId !== 'number' || !Number.isSafeInteger(categoryId) || categoryId < 1 || typeof status !== 'string' || !STATUSES.has(status)) {
        fail(res, 400, 'BAD_REQUEST');
        return;
      }
      const pet = await storage.insert(name, categoryId, status);
      send(res, 201, pet, { Location: `/v1/pets/${String(pet.id)}` });
    } else if (path.startsWith('/v1/pets/') && req.method === 'GET') {
      const id = positiveInt(path.slice('/v1/pets/'.length), Number.MAX_SAFE_INTEGER);
      const pet = id === undefined ? undefined : await storage.byId(id);
      if (!pet) {
        fail(res, id === undefined ? 400 : 404, id === undefined ? 'BAD_REQUEST' : 'NOT_FOUND');
        return;
      }
      send(res, 200, pet, GET_PET_DEPRECATION_HEADERS);
    } else {
      fail(res, 404, 'NOT_FOUND');
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      fail(res, 500, 'INTERNAL_SERVER_ERROR');
    });
  });
  server.listen(0, '127.0.0.1', () => {
    announceReady((server.address() as AddressInfo).port);
  });
};
