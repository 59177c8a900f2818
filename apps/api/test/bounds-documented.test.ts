import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_BATCH_SIZE, MAX_HELD_KEYS } from '@petstore/core';
import { describe, expect, it } from 'vitest';
import { MAX_QUOTA_SUBJECTS } from '../src/admission/quota.js';
import { BODY_LIMIT_BYTES, MAX_DECOMPRESSION_RATIO } from '../src/http/read-body.js';
import { CONNECTIONS_PAST_THE_LIMIT, CONNECTIONS_PAST_THE_SHARE, PAST_THE_SHARE_WAIT_MS } from '../src/front-door/connections.js';
import { SQLITE_PAGE_CACHE_KIB } from '@petstore/core';
import { TRACE_EXPORTS_IN_FLIGHT } from '../src/observability/tracing.js';
import { ALWAYS_WRITTEN_CHARACTERS } from '../src/front-door/unsent-bytes.js';
import { MAX_PIPELINED_REQUESTS, MAX_WAITING_REQUEST_BYTES } from '../src/front-door/connections.js';
import { KEEP_ALIVE_TIMEOUT_BUFFER_MS, KEEP_ALIVE_TIMEOUT_MS } from '../src/server.js';
import { MAX_LOGGED_URL_LENGTH } from '../src/front-door/access-line.js';
import { LINGER_MAX_BYTES, LINGER_MAX_MS } from '../src/front-door/lingering-close.js';
import { SETTINGS } from '../src/settings/config.js';
import { REPO_ROOT } from './support/processes.js';

/** The default a setting runs on when its variable is unset. */
const defaultOf = (key: keyof typeof SETTINGS) => SETTINGS[key].schema.parse(undefined) as number;

/** Every bound of docs/operating.md's Bounds table, as the code has it, in the table's order. */
const BOUNDS: [string, (string | number)[]][] = [
  ['`MAX_BATCH_SIZE`', [MAX_BATCH_SIZE]],
  ['`RATE_LIMIT_PER_MINUTE`', [defaultOf('rateLimitPerMinute')]],
  ['`AUTH_FAILURES_PER_MINUTE`', [defaultOf('authFailuresPerMinute')]],
  ['`MAX_QUOTA_SUBJECTS`', [MAX_QUOTA_SUBJECTS]],
  ['`MAX_HELD_KEYS`', [MAX_HELD_KEYS]],
  ['`BODY_LIMIT_BYTES`', [BODY_LIMIT_BYTES]],
  ['`MAX_DECOMPRESSION_RATIO`', [MAX_DECOMPRESSION_RATIO]],
  ['`HEADERS_TIMEOUT_MS`', [defaultOf('headersTimeoutMs')]],
  ['`BODY_TIMEOUT_MS`', [defaultOf('bodyTimeoutMs')]],
  ['`SEND_TIMEOUT_MS`', [defaultOf('sendTimeoutMs')]],
  ['`LINGER_MAX_MS`, `LINGER_MAX_BYTES`', [LINGER_MAX_MS, LINGER_MAX_BYTES]],
  ['`MAX_CONNECTIONS`', [defaultOf('maxConnections')]],
  ['`CONNECTIONS_PAST_THE_LIMIT`', [CONNECTIONS_PAST_THE_LIMIT]],
  ['`MAX_CONNECTIONS_PER_ADDRESS`', [defaultOf('maxConnectionsPerAddress')]],
  ['`CONNECTIONS_PAST_THE_SHARE`, `PAST_THE_SHARE_WAIT_MS`', [CONNECTIONS_PAST_THE_SHARE, PAST_THE_SHARE_WAIT_MS]],
  ['`LISTEN_BACKLOG`', [defaultOf('listenBacklog')]],
  ['`MAX_PIPELINED_REQUESTS`', [MAX_PIPELINED_REQUESTS]],
  ['`MAX_WAITING_REQUEST_BYTES`', [MAX_WAITING_REQUEST_BYTES]],
  ['`MAX_UNSENT_BYTES`', [defaultOf('maxUnsentBytes')]],
  ['`ALWAYS_WRITTEN_CHARACTERS`', [ALWAYS_WRITTEN_CHARACTERS]],
  ['`KEEP_ALIVE_TIMEOUT_MS`, `KEEP_ALIVE_TIMEOUT_BUFFER_MS`', [KEEP_ALIVE_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_BUFFER_MS]],
  ['`MAX_LOGGED_URL_LENGTH`', [MAX_LOGGED_URL_LENGTH]],
  ['`LOG_BACKLOG_BYTES`', [defaultOf('logBacklogBytes')]],
];

/** Every constant the Memory inventory quotes (`NAME` = `value`), as the service runs on it. */
const INVENTORY: [string, number][] = [
  ['MAX_UNSENT_BYTES', defaultOf('maxUnsentBytes')],
  ['ALWAYS_WRITTEN_CHARACTERS', ALWAYS_WRITTEN_CHARACTERS],
  ['BODY_LIMIT_BYTES', BODY_LIMIT_BYTES],
  ['MAX_PIPELINED_REQUESTS', MAX_PIPELINED_REQUESTS],
  ['MAX_WAITING_REQUEST_BYTES', MAX_WAITING_REQUEST_BYTES],
  ['MAX_CONNECTIONS', defaultOf('maxConnections')],
  ['CONNECTIONS_PAST_THE_LIMIT', CONNECTIONS_PAST_THE_LIMIT],
  ['CONNECTIONS_PAST_THE_SHARE', CONNECTIONS_PAST_THE_SHARE],
  ['PAST_THE_SHARE_WAIT_MS', PAST_THE_SHARE_WAIT_MS],
  ['MAX_CONNECTIONS_PER_ADDRESS', defaultOf('maxConnectionsPerAddress')],
  ['LOG_BACKLOG_BYTES', defaultOf('logBacklogBytes')],
  ['TRACE_EXPORTS_IN_FLIGHT', TRACE_EXPORTS_IN_FLIGHT],
  ['MAX_QUOTA_SUBJECTS', MAX_QUOTA_SUBJECTS],
  ['MAX_HELD_KEYS', MAX_HELD_KEYS],
  ['SQLITE_PAGE_CACHE_KIB', SQLITE_PAGE_CACHE_KIB],
];

const MiB = 1024 * 1024;
/** The per-item estimates the inventory states: a socket with its parser, a quota window, a held key, a span. */
const SOCKET_BYTES = 8 * 1024;
const QUOTA_WINDOW_BYTES = 256;
const HELD_KEY_BYTES = 512;
const SPAN_BYTES = 1024;
const SPANS_QUEUED = 2048;
const SPANS_PER_EXPORT = 512;
const METRIC_LABEL_SETS_MIB = 1;

/** The inventory's total, from the constants as the code has them, rounded as the page rounds each row. */
const inventoryTotalMiB = () => {
  const connections = defaultOf('maxConnections') + CONNECTIONS_PAST_THE_LIMIT;
  return [
    defaultOf('maxUnsentBytes') / MiB,
    (ALWAYS_WRITTEN_CHARACTERS * connections) / MiB,
    (BODY_LIMIT_BYTES * connections) / MiB,
    MAX_WAITING_REQUEST_BYTES / MiB,
    ((connections + CONNECTIONS_PAST_THE_SHARE) * SOCKET_BYTES) / MiB,
    defaultOf('logBacklogBytes') / MiB,
    ((TRACE_EXPORTS_IN_FLIGHT * SPANS_PER_EXPORT + SPANS_QUEUED) * SPAN_BYTES) / MiB,
    (2 * MAX_QUOTA_SUBJECTS * QUOTA_WINDOW_BYTES) / MiB,
    (MAX_HELD_KEYS * HELD_KEY_BYTES) / MiB,
    METRIC_LABEL_SETS_MIB,
    SQLITE_PAGE_CACHE_KIB / 1000,
  ].reduce((sum, mib) => sum + Math.round(mib), 0);
};

const operating = readFileSync(join(REPO_ROOT, 'docs', 'operating.md'), 'utf8');
const section = operating.slice(operating.indexOf('## Bounds'), operating.indexOf('\n## ', operating.indexOf('## Bounds') + 1));
/** The table's rows: bound, default. */
const rows = [...section.matchAll(/^\| (`[^|]+) \| ([^|]+) \|/gm)].map(([, bound, value]) => [bound?.trim(), value?.trim()]);

describe("docs/operating.md's Bounds", () => {
  it('lists every bound with the default the service runs on', () => {
    expect(rows.map(([bound]) => bound)).toEqual(BOUNDS.map(([bound]) => bound));
    for (const [bound, values] of BOUNDS) {
      const shown = rows.find(([name]) => name === bound)?.[1] ?? '';
      expect([...shown.matchAll(/`(\d+)`/g)].map(([, value]) => Number(value)), bound).toEqual(values);
    }
  });

  it('says when an idle keep-alive connection is closed: both bounds together', () => {
    expect(section).toContain(`closed ${(KEEP_ALIVE_TIMEOUT_MS + KEEP_ALIVE_TIMEOUT_BUFFER_MS) / 1000} s after its last answer`);
  });

  it("has a Memory inventory quoting each bound as the service runs on it, and the total they make", () => {
    const inventory = operating.slice(operating.indexOf('### Memory inventory'), operating.indexOf('\n## ', operating.indexOf('### Memory inventory')));
    for (const [name, value] of INVENTORY) expect(inventory, name).toContain(`\`${name}\` = \`${String(value)}\``);
    expect(inventory).toContain(`**Total: ${String(inventoryTotalMiB())} MiB**`);
  });
});
