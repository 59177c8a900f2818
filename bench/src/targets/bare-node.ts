// The physical limit of this stack: node:http and better-sqlite3 prepared statements, no
// framework and no library, doing the same work (key check, validation, the same SQL, headers).
import { createHash, timingSafeEqual } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import BetterSqlite3 from 'better-sqlite3';
import { announceReady, databaseFile } from './ready.js';

const sqlite = new BetterSqlite3(databaseFile());
sqlite.pragma('journal_mode = WAL');
sqlite.pragma('synchronous = NORMAL');

const columns = 'id, name, category_id as categoryId, status';
const listAll = sqlite.prepare(`select ${columns} from pets where id > ? order by id limit ?`);
const listByStatus = sqlite.prepare(`select ${columns} from pets where status = ? and id > ? order by id limit ?`);
const byId = sqlite.prepare(`select ${columns} from pets where id = ?`);
const insert = sqlite.prepare(`insert into pets (name, category_id, status) values (?, ?, ?) returning ${columns}`);
const keyHash = sqlite.prepare('select secret_hash from api_keys where public_id = ? and revoked_at is null').pluck();

const STATUSES = new Set(['available', 'pending', 'sold']);
const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));
};
const fail = (res: ServerResponse, status: number, code: string) => {
  send(res, status, { code, message: code, status });
};

const authorised = (req: IncomingMessage) => {
  // Both key formats the service takes: checksummed (49 base62 characters) and the earlier one.
  const token = /^Bearer +(pst_([0-9a-f]{12})_(?:[0-9A-Za-z]{49}|[A-Za-z0-9_-]{43}))$/i.exec(req.headers.authorization ?? '');
  const stored = token?.[2] && (keyHash.get(token[2]) as string | undefined);
  if (!token?.[1] || !stored) return false;
  return timingSafeEqual(Buffer.from(stored, 'hex'), createHash('sha256').update(token[1]).digest());
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

const handle = async (req: IncomingMessage, res: ServerResponse) => {
  if (!authorised(req)) {
    fail(res, 401, 'UNAUTHORIZED');
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
    const rows = (status === null ? listAll.all(afterId, limit + 1) : listByStatus.all(status, afterId, limit + 1)) as { id: number }[];
    const pets = rows.slice(0, limit);
    const last = pets.at(-1);
    const headers: Record<string, string> = {};
    if (rows.length > limit && last) {
      const next = new URLSearchParams({ limit: String(limit), ...(status !== null && { status }), cursor: Buffer.from(`after:${last.id}`).toString('base64url') });
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
    if (!body || !name || Array.from(name).length > 255 || !Number.isSafeInteger(body.categoryId) || (body.categoryId as number) < 1 || typeof status !== 'string' || !STATUSES.has(status)) {
      fail(res, 400, 'BAD_REQUEST');
      return;
    }
    const pet = insert.get(name, body.categoryId, status) as { id: number };
    send(res, 201, pet, { Location: `/v1/pets/${pet.id}` });
  } else if (path.startsWith('/v1/pets/') && req.method === 'GET') {
    const id = positiveInt(path.slice('/v1/pets/'.length), Number.MAX_SAFE_INTEGER);
    const pet = id === undefined ? undefined : byId.get(id);
    if (!pet) {
      fail(res, id === undefined ? 400 : 404, id === undefined ? 'BAD_REQUEST' : 'NOT_FOUND');
      return;
    }
    send(res, 200, pet, { Deprecation: '@1795305600', Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT', Link: '</v1/pets>; rel="successor-version"' });
  } else {
    fail(res, 404, 'NOT_FOUND');
  }
};

const server = createServer((req, res) => {
  void handle(req, res);
});

server.listen(0, '127.0.0.1', () => {
  announceReady((server.address() as AddressInfo).port);
});
