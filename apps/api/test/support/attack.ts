import type { Socket } from 'node:net';
import { exchangeOnce, requestText, statusOf } from './raw-connection.js';

/** Another loopback address than the attacker's 127.0.0.1: a client the service tells apart. */
const LEGITIMATE_ADDRESS = '127.0.0.2';

/** What a legitimate client met while an attack ran. */
export interface Bystander {
  statuses: Record<number, number>;
  /** Requests that got no answer: a reset, a connection refused or closed without one. */
  failures: number;
  p99Ms: number;
  maxMs: number;
}

const percentile = (sorted: number[], fraction: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;

/**
 * A client with a key that keeps making one small request at a time, each on a new connection,
 * from LEGITIMATE_ADDRESS, until stopped: what any other user of the service meets meanwhile.
 */
export const startBystander = (url: string, key: string, path = '/v1/pets?limit=1') => {
  const statuses: Record<number, number> = {};
  const timesMs: number[] = [];
  let failures = 0;
  const state = { running: true };
  const loop = (async () => {
    while (state.running) {
      const started = performance.now();
      const { answer } = await exchangeOnce(url, requestText('GET', path, { Authorization: `Bearer ${key}` }), 10, LEGITIMATE_ADDRESS);
      const status = statusOf(answer);
      if (Number.isNaN(status)) failures++;
      else statuses[status] = (statuses[status] ?? 0) + 1;
      timesMs.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return {
    stop: async (): Promise<Bystander> => {
      state.running = false;
      await loop;
      const sorted = [...timesMs].sort((a, b) => a - b);
      return { statuses, failures, p99Ms: Math.round(percentile(sorted, 0.99)), maxMs: Math.round(sorted.at(-1) ?? 0) };
    },
  };
};

/** One answer read off a connection: its status, its request id, its headers, and its body's first bytes. */
export interface ReadAnswer {
  status: number;
  requestId: string | undefined;
  head: string;
  bodyStart: string;
  bodyBytes: number;
}

/** How much of each body `readAnswers` keeps: answers of megabytes are counted, not kept. */
const KEPT_BODY_BYTES = 512;

/**
 * Reads the answers a connection receives (each with a Content-Length, as the service sends every
 * unstreamed answer), from the socket being resumed until `count` have come or the connection
 * closes, keeping only each body's first bytes.
 */
export const readAnswers = (socket: Socket, count: number, giveUpMs = 60_000) =>
  new Promise<ReadAnswer[]>((resolve) => {
    const answers: ReadAnswer[] = [];
    let pending: Buffer = Buffer.alloc(0);
    let current: ReadAnswer | undefined;
    let bodyLeft = 0;
    const done = () => {
      clearTimeout(timer);
      socket.off('data', onData);
      resolve(answers);
    };
    const timer = setTimeout(done, giveUpMs);
    const onData = (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      for (;;) {
        if (current) {
          const taken = Math.min(bodyLeft, pending.length);
          if (current.bodyStart.length < KEPT_BODY_BYTES) current.bodyStart += pending.subarray(0, Math.min(taken, KEPT_BODY_BYTES - current.bodyStart.length)).toString('latin1');
          bodyLeft -= taken;
          pending = pending.subarray(taken);
          if (bodyLeft > 0) return;
          answers.push(current);
          current = undefined;
          if (answers.length === count) {
            done();
            return;
          }
        }
        const end = pending.indexOf('\r\n\r\n');
        if (end === -1) return;
        const head = pending.subarray(0, end).toString('latin1');
        pending = pending.subarray(end + 4);
        bodyLeft = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
        current = { status: statusOf(head), requestId: /\r\nx-request-id: (\S+)/i.exec(head)?.[1], head, bodyStart: '', bodyBytes: bodyLeft };
      }
    };
    socket.on('data', onData);
    socket.once('close', done);
    socket.resume();
  });
