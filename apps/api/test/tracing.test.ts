import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect } from 'vitest';
import { it } from '../src/testing/index.js';
import { collect, spawnEntry, waitForOutput } from './support/processes.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: { stringValue?: string; intValue?: number | string } }[];
  status?: { code?: number };
}
interface OtlpExport {
  resourceSpans: { resource: { attributes: OtlpSpan['attributes'] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

/** A small OTLP/HTTP receiver on 127.0.0.1: every `POST /v1/traces` it gets, decoded from JSON. */
const startReceiver = async () => {
  const received: OtlpExport[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    spans: () => received.flatMap((batch) => batch.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans))),
    close: () => new Promise<void>((resolve) => server.close(() => { resolve(); })),
  };
};

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes?.find((entry) => entry.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue));
};

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const TRPC_TRACE_ID = '0af7651916cd43dd8448eb211c80319c';

let receiver: Awaited<ReturnType<typeof startReceiver>>;
let stdout = '';
it.beforeAll(async ({ storage }) => {
  receiver = await startReceiver();
  const child = spawnEntry('src/main.ts', [], {
    PORT: '0',
    ...storage.env,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_SERVICE_NAME: 'petstore-under-test',
  });
  const printed = await waitForOutput(child, /"msg":"Petstore is listening"/);
  const url = `http://127.0.0.1:${/"port":(\d+)/.exec(printed)?.[1] ?? ''}`;
  const key = /^ {2}(pst_\S+)$/m.exec(printed)?.[1] ?? '';
  const stopped = collect(child);
  const auth = { Authorization: `Bearer ${key}` };
  const created = await fetch(`${url}/v1/pets`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: '{"name":"Rex","categoryId":1}' });
  const { id } = (await created.json()) as { id: number };
  expect((await fetch(`${url}/v1/pets/${id}`, { headers: { ...auth, traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` } })).status).toBe(200);
  expect((await fetch(`${url}/trpc/listPets`, { headers: { ...auth, traceparent: `00-${TRPC_TRACE_ID}-${PARENT_ID}-01` } })).status).toBe(200);
  // Stopping exports what is left.
  child.kill('SIGTERM');
  stdout = printed + (await stopped).stdout;
}, 60_000);
afterAll(() => receiver.close());

describe('tracing over OTLP/HTTP', () => {
  it('continues an incoming traceparent: a server span named by its route, a procedure span, SQL spans', () => {
    const trace = receiver.spans().filter((span) => span.traceId === TRACE_ID);
    const server = trace.find((span) => span.parentSpanId === PARENT_ID);
    expect(server?.name).toBe('GET /v1/pets/{petId}');
    expect(server && attribute(server, 'http.route')).toBe('/v1/pets/{petId}');
    expect(server && attribute(server, 'http.request.method')).toBe('GET');
    expect(server && attribute(server, 'http.response.status_code')).toBe(200);
    expect(server?.kind).toBe(2); // SERVER
    const procedure = trace.find((span) => span.name === 'procedure getPet');
    expect(procedure?.parentSpanId).toBe(server?.spanId);
    const statements = trace.filter((span) => attribute(span, 'db.system.name') !== undefined);
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.map((span) => span.name)).toContain('SELECT pets');
    const ids = new Set([server?.spanId, procedure?.spanId]);
    for (const statement of statements) expect(ids.has(statement.parentSpanId)).toBe(true);
    expect(statements.some((span) => span.parentSpanId === procedure?.spanId)).toBe(true);
  });

  it('names a tRPC call by its procedure, in the trace its client started', () => {
    const trace = receiver.spans().filter((span) => span.traceId === TRPC_TRACE_ID);
    expect(trace.find((span) => span.parentSpanId === PARENT_ID)?.name).toBe('trpc listPets');
    expect(trace.map((span) => span.name)).toContain('procedure listPets');
  });

  it('carries the service name, and puts trace_id and span_id on the request log line', () => {
    expect(receiver.received[0]?.resourceSpans[0]?.resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'petstore-under-test' } });
    const line = stdout.split('\n').find((text) => text.includes(`"trace_id":"${TRACE_ID}"`));
    const server = receiver.spans().find((span) => span.parentSpanId === PARENT_ID && span.traceId === TRACE_ID);
    expect(line).toContain(`"span_id":"${server?.spanId ?? 'none'}"`);
    expect(line).toContain('"msg":"request completed"');
  });
});
