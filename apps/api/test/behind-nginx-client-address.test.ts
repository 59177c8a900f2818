import { describe, expect } from 'vitest';
import { it } from '../src/testing/index.js';
import { startNginx } from './support/nginx.js';

/**
 * Behind the shipped deploy/petstore.conf, loaded by Debian's nginx itself, over HTTPS, the service names a
 * request's client by the address that connected to nginx: whatever a client writes in its own
 * X-Forwarded-For, the per-address bounds count it as itself.
 */

const FAILURES_ALLOWED = 5;

describe('behind the shipped nginx', () => {
  it('a client that writes its own X-Forwarded-For is still counted as itself: its failed keys meet the throttle', async ({ startServer }) => {
    // TRUST_PROXY names nginx's address (loopback here) and nothing else, as docker-compose.yml does.
    const running = await startServer({ TRUST_PROXY: 'loopback', AUTH_FAILURES_PER_MINUTE: String(FAILURES_ALLOWED) });
    const upstream = new URL(running.url).host;
    const nginx = await startNginx([upstream, upstream]);
    try {
      const statuses: number[] = [];
      for (let guess = 0; guess < FAILURES_ALLOWED + 3; guess++) {
        // Each guess claims another address, as a client that wants a fresh throttle for each would.
        const response = await fetch(`${nginx.url}/v1/pets`, {
          headers: { Authorization: 'Bearer pst_not_a_key', 'X-Forwarded-For': `198.51.100.${String(guess)}` },
        });
        await response.arrayBuffer();
        statuses.push(response.status);
      }
      expect(statuses).toEqual([...Array.from({ length: FAILURES_ALLOWED }, () => 401), 429, 429, 429]);
    } finally {
      await nginx.dispose();
    }
  });
});
