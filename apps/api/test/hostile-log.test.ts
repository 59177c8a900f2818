import { spawn } from 'node:child_process';
import { closeSync, openSync, rmSync } from 'node:fs';
import { type Socket, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect } from 'vitest';
import { SETTINGS } from '../src/settings/config.js';
import { it } from '../src/testing/index.js';
import { portNobodyHolds } from '../src/testing/free-port.js';
import { API_ROOT, START_FLAGS, builtEntry } from './support/processes.js';
import { peakRssMiBOf, resetPeakRss, rssMiBOf } from './support/raw-connection.js';

/**
 * A flood of the refusals that leave an access line, each line as long as the log lets a URL make
 * it, from keep-alive connections that pipeline them: the log's backlog is bounded
 * (`LOG_BACKLOG_BYTES`) whatever stdout is: /dev/null, a pipe read as fast as it comes, or a FIFO
 * nobody reads. The service runs as `npx pnpm start` starts it (its heap caps): it lives, its RSS
 * stays flat, and the lines it could not hold are dropped and counted.
 */

/** docs/operating.md's Memory inventory: the most RSS the process may reach. */
const PEAK_RSS_MIB = 256;
/** The shortest access line a refusal below leaves: its URL is quoted up to MAX_LOGGED_URL_LENGTH. */
const SHORTEST_LINE_BYTES = 2_000;
/** Lines past the backlog that a stalled stdout may still hold: the batch being gathered, the write under way and the FIFO's 64 KiB. */
const HELD_PAST_THE_BACKLOG_BYTES = 128 * 1024;
const FLOOD_MS = 10_000;
/** Requests each connection has on the wire at once. */
const DEPTH = 16;

const defaultOf = (key: keyof typeof SETTINGS) => SETTINGS[key].schema.parse(undefined) as number;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** 2,040 characters: the URL an access line quotes nearly whole (MAX_LOGGED_URL_LENGTH). */
const LONG = 'a'.repeat(2_040);

/** Each refusal that logs, on the connections that ask for it: keyless, so nothing but the log is paid. */
const REFUSALS = [
  { kind: '404 (long URL)', request: `GET /${LONG} HTTP/1.1\r\nHost: x\r\n\r\n` },
  { kind: '400 (batch past its size)', request: `GET /trpc/${'listPets,'.repeat(60)}listPets?batch=1&pad=${LONG} HTTP/1.1\r\nHost: x\r\n\r\n` },
  // Refused 401 until the address's failed keys pass AUTH_FAILURES_PER_MINUTE, then 429.
  { kind: '401, then 429', request: `GET /v1/pets?pad=${LONG} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer pst_000000000000_nokey\r\n\r\n` },
];

type Stdout = '/dev/null' | 'read' | 'stalled FIFO';
const STDOUTS: Stdout[] = ['/dev/null', 'read', 'stalled FIFO'];

/** A connection that keeps DEPTH requests on the wire and counts the answers by status, reconnecting when closed. */
const floodWith = (port: number, request: string, statuses: Record<string, number>) => {
  const state = { on: true, socket: undefined as Socket | undefined };
  const open = () => {
    if (!state.on) return;
    const socket = connect({ port, host: '127.0.0.1' });
    state.socket = socket;
    let outstanding = DEPTH;
    socket.on('error', () => undefined);
    socket.once('close', () => setTimeout(open, 10));
    socket.write(request.repeat(DEPTH));
    socket.on('data', (chunk: Buffer) => {
      for (const [, status] of chunk.toString('latin1').matchAll(/HTTP\/1\.1 (\d{3}) /g)) {
        statuses[status ?? ''] = (statuses[status ?? ''] ?? 0) + 1;
        outstanding--;
      }
      if (outstanding <= 0 && state.on) {
        outstanding = DEPTH;
        socket.write(request.repeat(DEPTH));
      }
    });
  };
  open();
  return () => {
    state.on = false;
    state.socket?.destroy();
  };
};

const droppedLines = async (metricsPort: number) => {
  const text = await (await fetch(`http://127.0.0.1:${String(metricsPort)}/metrics`)).text();
  return Number(/^petstore_log_lines_dropped_total (\d+)/m.exec(text)?.[1] ?? Number.NaN);
};

describe('a flood of refusals that log, whatever takes stdout', () => {
  it(`leaves the process alive under ${PEAK_RSS_MIB} MiB, holds no more lines than LOG_BACKLOG_BYTES, and counts the lines it dropped: stdout to /dev/null, read, and stalled`, async ({ storage }) => {
    const rows: string[] = ['| stdout | requests answered | RSS before → peak (MiB) | alive | lines dropped (metric) | lines read |', '|---|---|---|---|---|---|'];
    const outcomes: { stdout: Stdout; alive: boolean; before: number; peak: number; dropped: number; answered: number; read: number; output: string }[] = [];
    for (const stdout of STDOUTS) {
      const [port, metricsPort] = [await portNobodyHolds(), await portNobodyHolds()];
      const fifo = join(dirname(storage.env.PETSTORE_DB ?? tmpdir()), `stdout-${String(port)}`);
      if (stdout === 'stalled FIFO') spawn('mkfifo', [fifo]).once('exit', () => undefined);
      await pause(stdout === 'stalled FIFO' ? 200 : 0);
      // A FIFO opened for reading and writing: the service's stdout, which nobody reads.
      const fd = stdout === '/dev/null' ? openSync('/dev/null', 'w') : stdout === 'stalled FIFO' ? openSync(fifo, 'r+') : undefined;
      const child = spawn(process.execPath, [...START_FLAGS, builtEntry('src/main.ts')], {
        cwd: API_ROOT,
        env: { ...process.env, ...storage.env, PORT: String(port), METRICS_PORT: String(metricsPort), FIRST_API_KEY: 'hint', OVERLOAD_DELAY_MS: String(defaultOf('overloadDelayMs')) },
        stdio: ['ignore', fd ?? 'pipe', 'pipe'],
      });
      let output = '';
      let linesRead = 0;
      child.stdout?.on('data', (chunk: Buffer) => {
        const text = chunk.toString();
        for (let at = text.indexOf('"msg":"request '); at !== -1; at = text.indexOf('"msg":"request ', at + 1)) linesRead++;
        // Only what is not an access line is kept, to be looked at.
        for (const line of text.split('\n')) if (line !== '' && !line.includes('"msg":"request ')) output += `${line}\n`;
      });
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise((resolve) => child.once('exit', resolve));
      try {
        for (let waited = 0; waited < 200; waited++) {
          if ((await fetch(`http://127.0.0.1:${String(port)}/healthz`).then((response) => response.status, () => 0)) === 200) break;
          await pause(100);
        }
        const pid = child.pid ?? 0;
        await pause(300);
        const before = rssMiBOf(pid);
        resetPeakRss(pid);
        const statuses: Record<string, number> = {};
        const stops = REFUSALS.flatMap(({ request }) => Array.from({ length: 10 }, () => floodWith(port, request, statuses)));
        await pause(FLOOD_MS);
        for (const stop of stops) stop();
        const running = () => child.exitCode === null && child.signalCode === null;
        const peak = running() ? peakRssMiBOf(pid) : Infinity;
        // What the destination still holds is written; then one more line, whose batch fits, tells
        // the episode's end (it is told when the log flows again).
        await pause(1_500);
        await fetch(`http://127.0.0.1:${String(port)}/after-the-flood`).then((response) => response.arrayBuffer(), () => undefined);
        await pause(500);
        const alive = running();
        const dropped = alive ? await droppedLines(metricsPort).catch(() => Number.NaN) : Number.NaN;
        const answered = Object.values(statuses).reduce((sum, count) => sum + count, 0);
        outcomes.push({ stdout, alive, before, peak, dropped, answered, read: linesRead, output });
        rows.push(`| ${stdout} | ${String(answered)} ${JSON.stringify(statuses)} | ${before.toFixed(0)} → ${peak.toFixed(0)} | ${String(alive)} | ${String(dropped)} | ${stdout === 'read' ? String(linesRead) : '-'} |`);
      } finally {
        child.kill('SIGKILL');
        await exited;
        if (fd !== undefined) closeSync(fd);
        rmSync(fifo, { force: true });
      }
    }
    console.log(`a flood of logged refusals, ${String(FLOOD_MS / 1000)} s each:\n${rows.join('\n')}`);
    for (const { stdout, alive, peak, dropped, answered, read, output } of outcomes) {
      expect(alive, stdout).toBe(true);
      expect(peak, stdout).toBeLessThanOrEqual(PEAK_RSS_MIB);
      expect(answered, stdout).toBeGreaterThan(10_000);
      expect(dropped, stdout).toBeGreaterThanOrEqual(0);
      // Nothing reads the FIFO: every line not dropped is still held, and the backlog bounds them.
      if (stdout === 'stalled FIFO') expect(answered - dropped).toBeLessThanOrEqual((defaultOf('logBacklogBytes') + HELD_PAST_THE_BACKLOG_BYTES) / SHORTEST_LINE_BYTES);
      if (stdout === 'read') {
        // Every line the service did not write is counted: written and dropped make every answer's.
        expect(read + dropped).toBeGreaterThanOrEqual(answered);
        // An episode of dropping is told once, when the log flows again.
        if (dropped > 0) expect(output.match(/lines past the backlog were dropped/g)?.length).toBeGreaterThanOrEqual(1);
      }
    }
  }, 150_000);
});
