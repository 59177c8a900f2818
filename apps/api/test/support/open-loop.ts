import { type Socket, connect } from 'node:net';

/** What a load got: each answer's status, and how long the answers of each status took. */
export interface LoadFigures {
  sent: number;
  statuses: Record<number, number>;
  /** Requests sent and never answered (their connection closed first). */
  unanswered: number;
  /** Of the answers with `status`, the percentile `fraction` of their times, in ms. */
  percentileMs(status: number, fraction: number): number;
  /** Answers per second, over the load. */
  perSecond: number;
  /** The first answer of each status, headers and body. */
  firstOf: Record<number, string>;
}

const percentile = (sorted: number[], fraction: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;

/**
 * A keep-alive connection that sends requests as it is told, without waiting for the answers before
 * them (pipelined), and times each answer against its request: answers come in order.
 */
const HEAD_END = Buffer.from('\r\n\r\n');

const pipelinedConnection = (port: number, from: string, request: string, tally: (status: number, ms: number, answer: () => string) => void) => {
  const socket: Socket = connect({ port, host: '127.0.0.1', localAddress: from });
  socket.setNoDelay(true);
  const sentAt: number[] = [];
  // The answer being read: its head's bytes so far, then how much of its body is still to come.
  let head: Buffer = Buffer.alloc(0);
  let bodyLeft = -1;
  let status = 0;
  let answer = '';
  socket.on('data', (chunk: Buffer) => {
    let rest = chunk;
    while (rest.length > 0) {
      if (bodyLeft < 0) {
        head = head.length === 0 ? rest : Buffer.concat([head, rest]);
        const end = head.indexOf(HEAD_END);
        if (end === -1) return;
        const text = head.subarray(0, end).toString('latin1');
        status = Number(text.slice(9, 12));
        bodyLeft = Number(/\r\ncontent-length: (\d+)/i.exec(text)?.[1] ?? 0);
        answer = text;
        rest = head.subarray(end + 4);
        head = Buffer.alloc(0);
      }
      const taken = Math.min(bodyLeft, rest.length);
      if (answer.length < 4096) answer += `\r\n\r\n${rest.subarray(0, taken).toString('latin1')}`;
      bodyLeft -= taken;
      rest = rest.subarray(taken);
      if (bodyLeft > 0) return;
      bodyLeft = -1;
      const whole = answer;
      tally(status, performance.now() - (sentAt.shift() ?? Number.NaN), () => whole);
    }
  });
  socket.on('error', () => undefined);
  const connected = new Promise<void>((resolve) => socket.once('connect', () => { resolve(); }));
  return {
    connected,
    /** Requests sent and not answered yet. */
    outstanding: () => sentAt.length,
    closed: () => socket.destroyed,
    send: () => {
      sentAt.push(performance.now());
      socket.write(request);
    },
    close: () => {
      const unanswered = sentAt.length;
      socket.destroy();
      return unanswered;
    },
  };
};

export interface LoadOptions {
  url: string;
  /** The request, as it goes on the wire, keep-alive. */
  request: string;
  seconds: number;
  /** Connections, from 64 loopback addresses in turn: each one user, as far as the service can tell. */
  connections: number;
  /** Answers a connection may owe before it sends no more: within the service's pipelining depth. */
  maxOutstanding: number;
}

/**
 * Load at `rate` requests a second, sent on schedule whether or not the answers before them have
 * come (open loop, as independent users arrive), spread over keep-alive connections; or, with
 * `rate` undefined, as fast as the answers come back (closed loop), one outstanding per connection.
 */
export const runLoad = async ({ url, request, seconds, connections, maxOutstanding }: LoadOptions, rate?: number): Promise<LoadFigures> => {
  const port = Number(new URL(url).port);
  const statuses: Record<number, number> = {};
  const times = new Map<number, number[]>();
  const firstOf: Record<number, string> = {};
  let sent = 0;
  let answered = 0;
  const tally = (status: number, ms: number, answer: () => string) => {
    answered++;
    statuses[status] = (statuses[status] ?? 0) + 1;
    firstOf[status] ??= answer();
    let list = times.get(status);
    if (!list) times.set(status, (list = []));
    list.push(ms);
    if (rate === undefined && running) {
      sent++;
      pool[next++ % pool.length]?.send();
    }
  };
  let running = true;
  let next = 0;
  // Spread over loopback addresses, as many users are: one address may hold only so many connections.
  const pool = Array.from({ length: connections }, (_, index) => pipelinedConnection(port, `127.0.3.${String(1 + (index % 64))}`, request, tally));
  // Every connection open before the first request: a handshake the system retries would count as the service's time.
  await Promise.all(pool.map(({ connected }) => connected));
  const started = performance.now();
  if (rate === undefined) {
    for (const connection of pool) {
      sent++;
      connection.send();
    }
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  } else {
    // Every 5 ms, what the rate owes since the start, on the connections in turn that may take more.
    await new Promise<void>((resolve) => {
      const tick = setInterval(() => {
        const elapsed = performance.now() - started;
        if (elapsed >= seconds * 1000) {
          clearInterval(tick);
          resolve();
          return;
        }
        const owed = Math.floor((elapsed / 1000) * rate) - sent;
        for (let sending = 0, tried = 0; sending < owed && tried < pool.length; tried++) {
          const connection = pool[next++ % pool.length];
          if (!connection || connection.closed() || connection.outstanding() >= maxOutstanding) continue;
          connection.send();
          sent++;
          sending++;
        }
      }, 5);
    });
  }
  running = false;
  const elapsedS = (performance.now() - started) / 1000;
  // The answers still owed may come for a while on a busy machine; then what is left is counted unanswered.
  const deadline = performance.now() + 15_000;
  while (pool.some((connection) => connection.outstanding() > 0 && !connection.closed()) && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const unanswered = pool.reduce((sum, connection) => sum + connection.close(), 0);
  for (const list of times.values()) list.sort((a, b) => a - b);
  return {
    sent,
    statuses,
    unanswered,
    percentileMs: (status, fraction) => percentile(times.get(status) ?? [], fraction),
    perSecond: answered / elapsedS,
    firstOf,
  };
};
