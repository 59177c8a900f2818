import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';

/**
 * How often the service judges whether it is overloaded: each judgement is on the requests of one
 * window, so a single slow turn of the loop decides nothing.
 */
const OVERLOAD_WINDOW_MS = 250;
/** What an overloaded service tells clients to wait before they try again. */
export const OVERLOAD_RETRY_AFTER_SECONDS = 1;

/**
 * How long the loop must have waited for work, since the turn before, for the requests of a turn
 * to have arrived with nothing ahead of them: a loop with work waiting spends microseconds in the
 * system's poll, one that ran out of work blocks there.
 */
const IDLE_MS = 1;

/**
 * A turn of the loop shorter than this, from its first request to its end, is taken as all work:
 * measuring the CPU it took would cost more than any difference it could make.
 */
const SHORT_TURN_MS = 5;

export interface OverloadGuard {
  /** Whether the request the front door opened at `openedAt` is refused: too much of the service's own work is ahead of it. Read per request. */
  shed(openedAt: number): boolean;
  stop(): void;
}

/**
 * The share of a core the process may use: a CPU quota (a container's `limits.cpu`, cgroup v2's
 * `cpu.max` or v1's `cpu.cfs_quota_us`) below one core, or one core, which is all a Node event
 * loop runs on.
 */
const cpuShare = (): number => {
  const read = (path: string) => {
    try {
      return readFileSync(path, 'utf8').trim();
    } catch {
      return undefined;
    }
  };
  const [quota, period] = read('/sys/fs/cgroup/cpu.max')?.split(' ') ?? [read('/sys/fs/cgroup/cpu/cpu.cfs_quota_us'), read('/sys/fs/cgroup/cpu/cpu.cfs_period_us')];
  const share = Number(quota) / Number(period);
  return Number.isFinite(share) && share > 0 ? Math.min(1, share) : 1;
};

/** CPU milliseconds the event loop's thread has used. */
const loopCpuMs = () => {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
};

/**
 * Load shedding by the service's own backlog, as CoDel judges a queue (RFC 8289), counted in the
 * service's own work rather than in time a busy host adds. The requests read in one turn of the
 * event loop wait on each other, and when the loop had no moment idle since the turn before, they
 * also waited for that turn: what a request has ahead of it is the CPU the loop spent on those,
 * over the share of a core the process may use (a container's quota). A host that does not run
 * the process stretches the turn's time, not its CPU: a turn slower than SHORT_TURN_MS is measured
 * in CPU, and later turns' times are scaled by the CPU the last one got per millisecond.
 *
 * When even the least work ahead of a request in a whole window was above `targetMs`, the queue
 * never drained: the service is overloaded, and until a window says otherwise a request with
 * more than twice the target ahead of it is refused with a cheap 503, so that those behind it are
 * answered in time. A lone request on a starved host has nothing ahead of it and is served,
 * however late; a closed set of clients (a proxy's connections) queues at most one request each.
 * Each change is logged once, at warn. Undefined when the target is 0.
 */
export const createOverloadGuard = (targetMs: number, logger: Logger): OverloadGuard | undefined => {
  if (targetMs === 0) return undefined;
  const sloughMs = 2 * targetMs;
  const share = cpuShare();
  let leastAheadMs = Infinity;
  let overloaded = false;

  let inTurn = false;
  let turnStartedAt = 0;
  /** The loop's CPU when the turn began, read only when the turn before was not short. */
  let turnStartCpu: number | undefined;
  /** The work of the turn before, when the loop went on to this one without waiting. */
  let carriedMs = 0;
  let lastTurnMs = 0;
  let lastTurnWorkMs = 0;
  /** CPU milliseconds the loop got per millisecond of this turn, as the last measured one got: 1 when unmeasured. */
  let cpuPerMs = 1;
  let idleAtTurnEnd = 0;

  const endTurn = () => {
    inTurn = false;
    lastTurnMs = performance.now() - turnStartedAt;
    const cpuMs = turnStartCpu === undefined ? lastTurnMs : loopCpuMs() - turnStartCpu;
    if (turnStartCpu !== undefined && lastTurnMs > 0) cpuPerMs = Math.min(1, cpuMs / lastTurnMs);
    lastTurnWorkMs = cpuMs / share;
    idleAtTurnEnd = performance.eventLoopUtilization().idle;
  };

  const judge = () => {
    const wasOverloaded = overloaded;
    // A window without a request had nothing queued.
    overloaded = leastAheadMs !== Infinity && leastAheadMs > targetMs;
    const fields = { leastAheadMs: Math.round(leastAheadMs), targetMs, windowMs: OVERLOAD_WINDOW_MS };
    leastAheadMs = Infinity;
    if (overloaded === wasOverloaded) return;
    if (overloaded) logger.warn(fields, `overloaded: every request of the last window had more than ${targetMs} ms of the service's work ahead of it; refusing those with over ${sloughMs} ms with 503`);
    else logger.warn(fields, 'no longer overloaded: serving every request again');
  };
  const judging = setInterval(judge, OVERLOAD_WINDOW_MS).unref();

  return {
    stop: () => {
      clearInterval(judging);
    },
    shed: (openedAt) => {
      if (!inTurn) {
        inTurn = true;
        turnStartedAt = openedAt;
        // A slow turn before this one: this one is measured in CPU, to tell work from a host that waited.
        turnStartCpu = lastTurnMs > SHORT_TURN_MS ? loopCpuMs() : undefined;
        if (turnStartCpu === undefined) cpuPerMs = 1;
        // Idle since the last turn: what arrived meanwhile was read at once. Asked only when it matters.
        carriedMs = lastTurnWorkMs > targetMs && performance.eventLoopUtilization().idle - idleAtTurnEnd >= IDLE_MS ? 0 : lastTurnWorkMs;
        setImmediate(endTurn);
      }
      const aheadMs = carriedMs + ((openedAt - turnStartedAt) * cpuPerMs) / share;
      if (aheadMs < leastAheadMs) leastAheadMs = aheadMs;
      return overloaded && aheadMs > sloughMs;
    },
  };
};
