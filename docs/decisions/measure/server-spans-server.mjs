// A server that answers `GET /v1/pets/1` with a small JSON body, traced one way per variant:
//   none                  no tracing at all
//   hand                  a server span per request as apps/api/src/observability/tracing.ts makes it:
//                         the incoming traceparent continued, the span active while the handler
//                         runs, named by its route and given its status when the answer is written
//   instrumentation-http  @opentelemetry/instrumentation-http's span (stable attribute names,
//                         OTEL_SEMCONV_STABILITY_OPT_IN=http), renamed by its route in the handler
// Both traced variants use the service's SDK (NodeTracerProvider, batch processor) with an exporter
// that drops the spans, so the figures are the spans' cost in the request path, not the export's.
// instrumentation-http is not in the repository: INSTRUMENTATION_HTTP_DIR names a folder where
// `npm install @opentelemetry/instrumentation-http@<the exporter's version>` was run.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const apiRequire = createRequire(new URL('../../../apps/api/package.json', import.meta.url));
const { context, trace } = apiRequire('@opentelemetry/api');
// The service's own span, from its build (`npx pnpm build` first).
const { startServerSpan } = await import(new URL('../../../apps/api/dist/observability/tracing.js', import.meta.url).href);
const { BatchSpanProcessor, NodeTracerProvider } = apiRequire('@opentelemetry/sdk-trace-node');

const ROUTE = '/v1/pets/{petId}';
const variant = process.argv[2];

const registerProvider = () => {
  const dropped = { export: (spans, done) => done({ code: 0 }), shutdown: async () => undefined };
  const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropped)] });
  provider.register();
  return provider;
};

const body = JSON.stringify({ id: 1, name: 'Rex', categoryId: 1, status: 'available', tags: ['friendly'] });
/** What the service's writer does last: the answer in one writeHead and end. */
const write = (res) => res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }).end(body);

const handlers = {
  none: () => (req, res) => write(res),
  hand: () => {
    const tracer = registerProvider().getTracer('petstore');
    return (req, res) => {
      const { span, parent, method } = startServerSpan(tracer, req);
      // The log line's ids, as the service keeps them on the exchange.
      const { traceId, spanId } = span.spanContext();
      res.traceIds = { trace_id: traceId, span_id: spanId };
      context.with(trace.setSpan(parent, span), () => {
        write(res);
        span.updateName(`${method} ${ROUTE}`);
        span.setAttribute('http.route', ROUTE);
        span.setAttribute('http.response.status_code', 200);
        span.end();
      });
    };
  },
  'instrumentation-http': () => {
    const folder = process.env.INSTRUMENTATION_HTTP_DIR;
    if (!folder) throw new Error('set INSTRUMENTATION_HTTP_DIR');
    process.env.OTEL_SEMCONV_STABILITY_OPT_IN = 'http';
    const { HttpInstrumentation } = createRequire(join(folder, 'package.json'))('@opentelemetry/instrumentation-http');
    const instrumentation = new HttpInstrumentation();
    instrumentation.setTracerProvider(registerProvider());
    // Patched when required after the instrumentation: an ES module's import would need its loader hook.
    createRequire(import.meta.url)('node:http');
    return (req, res) => {
      const span = trace.getActiveSpan();
      const { traceId, spanId } = span.spanContext();
      res.traceIds = { trace_id: traceId, span_id: spanId };
      span.updateName(`${req.method} ${ROUTE}`);
      span.setAttribute('http.route', ROUTE);
      write(res);
    };
  },
};

const handlerOf = handlers[variant];
if (!handlerOf) throw new Error(`no variant ${variant}; one of ${Object.keys(handlers).join(', ')}`);
const handler = handlerOf();
const { createServer } = createRequire(import.meta.url)('node:http');
const server = createServer(handler).listen(0, '127.0.0.1', () => {
  process.send({
    port: server.address().port,
    request: {
      method: 'GET',
      path: '/v1/pets/1',
      headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'User-Agent': 'measure' },
      status: 200,
    },
  });
});
process.on('message', () => process.send(process.cpuUsage()));
// Gone with the driver, even when it fails half-way.
process.once('disconnect', () => process.exit());
