import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Logger } from 'pino';

/** How often the event loop's delay is read; a window's mean decides the next window's answers. */
export const OVERLOAD_WINDOW_MS = 250;
/** What an overloaded service tells clients to wait before they try again. */
export const OVERLOAD_RETRY_AFTER_SECONDS = 1;

export interface OverloadGuard {
  /** True while the event loop's mean delay over the last window is above the threshold; read per request. */
  readonly overloaded: boolean;
  stop(): void;
}

/**
 * Load shedding by event-loop delay, the measure of how long work waits to run here. While the
 * mean delay of a window stays above `thresholdMs`, new API requests are refused with a 503 and
 * `/readyz` answers 503, so a load balancer sends work elsewhere instead of letting it queue; the
 * next quiet window lifts it. Each change is logged once, at warn. Undefined when the threshold is 0.
 */
export const createOverloadGuard = (thresholdMs: number, logger: Logger): OverloadGuard | undefined => {
  if (thresholdMs === 0) return undefined;
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const timer = setInterval(() => {
    const meanMs = delay.count === 0 ? 0 : delay.mean / 1e6;
    delay.reset();
    logger.debug({ eventLoopDelayMs: Math.round(meanMs * 10) / 10 }, 'event loop delay');
    if (meanMs > thresholdMs === guard.overloaded) return;
    guard.overloaded = !guard.overloaded;
    if (guard.overloaded) logger.warn({ eventLoopDelayMs: Math.round(meanMs), thresholdMs }, 'overloaded: refusing new requests with 503');
    else logger.warn({ eventLoopDelayMs: Math.round(meanMs), thresholdMs }, 'no longer overloaded: serving requests again');
  }, OVERLOAD_WINDOW_MS).unref();
  const guard = {
    overloaded: false,
    stop: () => {
      clearInterval(timer);
      delay.disable();
    },
  };
  return guard;
};
