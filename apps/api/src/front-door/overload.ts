import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';

/**
 * How often the service measures what a request costs it and judges whether it is overloaded:
 * each judgement is on the requests of one window, so a single slow turn of the loop decides nothing.
 */
export const OVERLOAD_WINDOW_MS = 250;
/**
 * How long the loop must have waited for work, since the turn before, for the requests of a turn
 * to have arrived with nothing ahead of them: a loop with work waiting spends microseconds in the
 * system's poll, one that ran out of work blocks there.
 */
const IDLE_MS = 1;

/** What an overloaded service tells clients to wait before they try again. */
export const OVERLOAD_RETRY_AFTER_SECONDS = 1;

/** What the front door tells the guard of its exchanges. */
export interface Backlog {
  /** Requests opened and not yet answered. */
  readonly inFlight: number;
  /** Requests answered since the process started. */
  readonly answered: number;
}

export interface OverloadGuard {
  /** Whether the request the front door is opening now is refused: it would wait too long behind the others. Read per request. */
  shed(): boolean;
  stop(): void;
}

/**
 * The share of a core the process may use: a CPU quota (a container's `limits.cpu`, cgroup v2's
 * `cpu.max` or v1's `cpu.cfs_quota_us`) below one core, or one core, which is all a Node event
 * loop runs on.
 */
export const cpuShare = (): number => {
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

/**
 * Load shedding by the service's own backlog, as CoDel judges a queue (RFC 8289), counted in the
 * service's own work rather than in time a busy host adds: the requests ahead of one (those still
 * being answered, those before it in the loop's turn, and, when the loop had no moment idle, the
 * turn before's) times what a request costs the service in CPU (measured each window, over its
 * share of a core) is how long it waits before the service can start on it. When even the shortest
 * such wait of a whole window was above `targetMs`, the queue never drained: the service is
 * overloaded, and until a window says otherwise a request that would wait more than twice the
 * target is refused with a cheap 503, so that those behind it are answered in time. A lone request
 * on a starved host has nothing ahead of it and is served, however late; a closed set of clients
 * (a proxy's connections) queues at most one request each. Each change is logged once, at warn.
 * Undefined when the target is 0.
 */
export const createOverloadGuard = (targetMs: number, backlog: Backlog, logger: Logger): OverloadGuard | undefined => {
  if (targetMs === 0) return undefined;
  const sloughMs = 2 * targetMs;
  const share = cpuShare();
  /** CPU milliseconds a request costs, over the share: the last window's measure. */
  let costMs = 0;
  let cpuBefore = process.cpuUsage();
  let answeredBefore = backlog.answered;
  let shortestWaitMs = Infinity;
  let overloaded = false;
  let refusedInWindow = 0;

  let inTurn = false;
  /** Requests in flight from earlier turns when this one began, and those admitted in it so far. */
  let aheadAtTurnStart = 0;
  let admittedInTurn = 0;
  let lastTurnAdmitted = 0;
  let idleAtTurnEnd = 0;

  const endTurn = () => {
    inTurn = false;
    lastTurnAdmitted = admittedInTurn;
    idleAtTurnEnd = performance.eventLoopUtilization().idle;
  };

  const judge = () => {
    const cpu = process.cpuUsage(cpuBefore);
    cpuBefore = process.cpuUsage();
    const answered = backlog.answered - answeredBefore;
    answeredBefore = backlog.answered;
    // Learned from windows that refused nothing: a refusal costs a fraction of a request, and
    // counting them would make the work ahead look smaller the more is refused.
    if (answered > 0 && refusedInWindow === 0) costMs = (cpu.user + cpu.system) / 1000 / answered / share;
    refusedInWindow = 0;
    // A window without a request had nothing queued.
    const wasOverloaded = overloaded;
    overloaded = shortestWaitMs !== Infinity && shortestWaitMs > targetMs;
    shortestWaitMs = Infinity;
    if (overloaded === wasOverloaded) return;
    const fields = { costMs: Math.round(costMs * 1000) / 1000, targetMs, windowMs: OVERLOAD_WINDOW_MS };
    if (overloaded) logger.warn(fields, `overloaded: every request of the last window had more than ${targetMs} ms of work ahead of it; refusing those with over ${sloughMs} ms with 503`);
    else logger.warn(fields, 'no longer overloaded: serving every request again');
  };
  const judging = setInterval(judge, OVERLOAD_WINDOW_MS).unref();

  return {
    stop: () => {
      clearInterval(judging);
    },
    shed: () => {
      if (!inTurn) {
        inTurn = true;
        admittedInTurn = 0;
        // This request is in flight already; the others were opened in turns before.
        aheadAtTurnStart = backlog.inFlight - 1;
        // Idle since the last turn: what arrived meanwhile was read at once. Otherwise the turn
        // before's requests were ahead of this one's too; asked only when it could matter.
        if (lastTurnAdmitted * costMs > targetMs && performance.eventLoopUtilization().idle - idleAtTurnEnd >= IDLE_MS) lastTurnAdmitted = 0;
        aheadAtTurnStart += lastTurnAdmitted;
        setImmediate(endTurn);
      }
      // Only admitted requests are work ahead: a refusal costs a fraction of one.
      const waitMs = (aheadAtTurnStart + admittedInTurn) * costMs;
      if (waitMs < shortestWaitMs) shortestWaitMs = waitMs;
      const refused = overloaded && waitMs > sloughMs;
      if (refused) refusedInWindow++;
      else admittedInTurn++;
      return refused;
    },
  };
};
