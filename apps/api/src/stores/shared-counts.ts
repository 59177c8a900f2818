import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * The Redis connection that rate limits share between instances. Redis only counts requests, so
 * the service never waits for it: a command that takes longer than `timeoutMs` fails, a command
 * sent while it is away fails at once (no offline queue), and the quotas then count in this
 * process (see quota.ts). ioredis reconnects by itself; one warning marks each change of state.
 */
export interface SharedCounts {
  client: Redis;
  /** Whether Redis answers now; false while each instance counts alone. */
  available(): boolean;
  close(): Promise<void>;
}

export const connectSharedCounts = async (url: string, timeoutMs: number, logger: Logger): Promise<SharedCounts> => {
  // Loaded only when Redis is configured: the SQLite default never needs the driver.
  const { Redis } = await import('ioredis');
  const client = new Redis(url, {
    lazyConnect: true,
    commandTimeout: timeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
  });
  const NOT_ANSWERING = 'redis is not answering: each instance counts rate limits on its own until it is back';
  let down = false;
  let closing = false;
  const wentDown = (error?: unknown) => {
    if (down || closing) return;
    down = true;
    logger.warn({ store: 'redis', ...(error !== undefined && { err: error }) }, NOT_ANSWERING);
  };
  client.on('ready', () => {
    if (!down) return;
    down = false;
    logger.warn({ store: 'redis' }, 'redis answers again: rate limits are shared by every instance');
  });
  client.on('close', () => {
    wentDown();
  });
  // Each reconnection attempt fails with an error; the transitions above are what an operator needs.
  client.on('error', (error: Error) => {
    logger.debug({ err: error, store: 'redis' }, 'redis connection error');
  });
  try {
    await client.connect();
  } catch (error) {
    // Started without Redis: serve anyway, counting in this process; ioredis keeps trying.
    wentDown(error);
  }
  return {
    client,
    available: () => client.status === 'ready',
    close: async () => {
      closing = true;
      if (client.status === 'ready') await client.quit();
      else client.disconnect();
    },
  };
};
