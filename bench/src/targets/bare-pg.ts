// The physical limit of the PostgreSQL stack: node:http and pg, no framework, no library beyond
// the driver, the same statements and table as the service, one API key held in memory.
import { createHash, timingSafeEqual } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import pg from 'pg';
import { announceReady } from './ready.js';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is not set');
const pool = new pg.Pool({ connectionString: url, max: 10 });
// int8 ids as numbers, as the service reads them.
pg.types.setTypeParser(pg.types.builtins.INT8, Number);

const columns = 'id, name, category_id as "categoryId", status';
interface PetRow {
  id: number;
}
const statement = (name: string, text: string) => (values: unknown[]) => pool.query<PetRow>({ name, text, values });
const listAll = statement('list', `select ${columns} from pets where id > $1 order by id limit $2`);
const listByStatus = statement('list_status', `select ${columns} from pets where status = $1 and id > $2 order by id limit $3`);
const byId = statement('by_id', `select ${columns} from pets where id = $1`);
const insert = statement('insert', `insert into pets (name, category_id, status) values ($1, $2, $3) returning ${columns}`);

// The one key, read once: a request compares its token's hash in memory, with no round trip.
const { rows: [key] } = await pool.query<{ secret_hash: string }>('select secret_hash from api_keys where revoked_at is null order by id limit 1');
if (!key) throw new Error('the database holds no API key');
const keyHash = Buffer.from(key.secret_hash, 'hex');

const STATUSES = new Set(['available', 'pending', 'sold']);
const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));
};
const fail = (res: ServerResponse, status: number, code: string) => {
  send(res, status, { code, message: code, status });
};

const authorised = (req: IncomingMessage) => {
  const token = /^Bearer +(pst_[0-9a-f]{12}_[0-9A-Za-z_-]{43,49})$/i.exec(req.headers.authorization ?? '')?.[1];
  return token !== undefined && timingSafeEqual(keyHash, createHash('sha256').update(token).digest());
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
    const { rows } = await (status === null ? listAll([afterId, limit + 1]) : listByStatus([status, afterId, limit + 1]));
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
    const { rows: [pet] } = await insert([name, body.categoryId, status]);
    if (!pet) throw new Error('INSERT … RETURNING returned no row');
    send(res, 201, pet, { Location: `/v1/pets/${String(pet.id)}` });
  } else if (path.startsWith('/v1/pets/') && req.method === 'GET') {
    const id = positiveInt(path.slice('/v1/pets/'.length), Number.MAX_SAFE_INTEGER);
    const pet = id === undefined ? undefined : (await byId([id])).rows[0];
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
  handle(req, res).catch(() => {
    fail(res, 500, 'INTERNAL_SERVER_ERROR');
  });
});

server.listen(0, '127.0.0.1', () => {
  announceReady((server.address() as AddressInfo).port);
});
