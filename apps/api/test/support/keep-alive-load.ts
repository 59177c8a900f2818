import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import { Agent as TlsAgent, request as tlsRequest } from 'node:https';

export type Outcome =
  | { kind: 'answered'; status: number; body: string; headers: IncomingHttpHeaders }
  | { kind: 'failed'; code: string | undefined };

/** One request on `agent`'s connections; a connection that dies before a whole answer is a failure, with its code. */
export const send = (agent: Agent | false, url: string, key: string, id: string, method: string, path: string, body?: string) =>
  new Promise<Outcome>((resolve) => {
    const headers: Record<string, string> = { Authorization: `Bearer ${key}`, 'X-Request-Id': id };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    // HTTPS through a proxy that ends TLS (deploy/petstore.conf), whose throwaway certificate the test process trusts.
    const req = (url.startsWith('https:') ? tlsRequest : request)(`${url}${path}`, { method, agent, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => { resolve({ kind: 'answered', status: res.statusCode ?? 0, body: text, headers: res.headers }); });
      res.on('error', (error: NodeJS.ErrnoException) => { resolve({ kind: 'failed', code: error.code }); });
    });
    req.on('error', (error: NodeJS.ErrnoException) => { resolve({ kind: 'failed', code: error.code }); });
    req.end(body);
  });

/** A request of the load, and when it was sent and answered (ms on `performance.now()`'s clock). */
export interface Sent {
  method: 'GET' | 'POST';
  /** The animal's name, for a create. */
  name?: string;
  sentAt: number;
  answeredAt: number;
  outcome: Outcome;
}

export interface LoadFigures {
  requests: number;
  /** Answers by status, and failures (no whole answer) by their code. */
  byStatus: Record<string, number>;
}

export const figuresOf = (sent: Sent[]): LoadFigures => {
  const byStatus: Record<string, number> = {};
  for (const { outcome } of sent) {
    const label = outcome.kind === 'answered' ? String(outcome.status) : `failed ${outcome.code ?? '?'}`;
    byStatus[label] = (byStatus[label] ?? 0) + 1;
  }
  return { requests: sent.length, byStatus };
};

export const isSuccess = ({ outcome }: Sent) => outcome.kind === 'answered' && outcome.status >= 200 && outcome.status < 300;

/**
 * `clients` keep-alive clients, each sending a create and a list of 20 in turn (only lists with
 * `readsOnly`), one after another, until `finish()`, or until `maxRequests` were sent or `maxMs` passed, whichever comes first: a load
 * that a failed test cannot leave running.
 */
export const keepAliveLoad = ({
  url,
  apiKey,
  clients,
  run,
  maxRequests,
  maxMs,
  readsOnly = false,
}: {
  url: string;
  apiKey: string;
  clients: number;
  /** Starts every request id and animal name. */
  run: string;
  maxRequests: number;
  maxMs: number;
  readsOnly?: boolean;
}) => {
  if (!/^https?:\/\/127\.0\.0\.1:/.test(url)) throw new Error(`refusing to load ${url}: loopback only`);
  const agent = new (url.startsWith('https:') ? TlsAgent : Agent)({ keepAlive: true, maxSockets: clients });
  const sent: Sent[] = [];
  const until = performance.now() + maxMs;
  let going = true;
  const client = async (index: number) => {
    for (let turn = 0; going && sent.length < maxRequests && performance.now() < until; turn++) {
      const create = !readsOnly && (index + turn) % 2 === 0;
      const name = `${run} ${String(index)}/${String(turn)}`;
      const sentAt = performance.now();
      const outcome = create
        ? await send(agent, url, apiKey, `${run}-${String(index)}-${String(turn)}`, 'POST', '/v1/pets', JSON.stringify({ name, categoryId: 1 + (turn % 9) }))
        : await send(agent, url, apiKey, `${run}-${String(index)}-${String(turn)}`, 'GET', '/v1/pets?limit=20');
      sent.push({ method: create ? 'POST' : 'GET', ...(create && { name }), sentAt, answeredAt: performance.now(), outcome });
    }
  };
  const clientsDone = Promise.all(Array.from({ length: clients }, (_, index) => client(index)));
  return {
    sent,
    finish: async () => {
      going = false;
      await clientsDone;
      agent.destroy();
      return sent;
    },
  };
};
