import { once } from 'node:events';
import { createServer } from 'node:net';

/** A port on 127.0.0.1 that nothing listened on a moment ago: for a process a test starts, or an address where nothing answers. */
export const portNobodyHolds = async (): Promise<number> => {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  if (address === null || typeof address === 'string') throw new Error('the probe has no port');
  return address.port;
};
