import type { IncomingMessage } from 'node:http';
import { type Operation, type StatementObserver, TRPC_PREFIX, operations } from '@petstore/core';
import { type Tracer, ROOT_CONTEXT, SpanKind, SpanStatusCode, context as otelContext, propagation, trace } from '@opentelemetry/api';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_DB_COLLECTION_NAME,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_TEXT,
  ATTR_DB_SYSTEM_NAME,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
  ATTR_URL_QUERY,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import { TRPCError } from '@trpc/server';
import { type RequestObserver, listenForFinish } from './request-observer.js';

export interface Tracing {
  observer: RequestObserver;
  onStatement: StatementObserver;
  /** Exports what is left and stops. */
  shutdown(): Promise<void>;
}

const TRPC_ROUTE_PREFIX = `${TRPC_PREFIX}/`;

/** `GET /v1/pets/{petId}`, `trpc listPets`, `trpc {batch}`; the method alone when no route was found. */
const spanNameOf = (method: string, route: string | undefined) => {
  if (route === undefined) return method;
  return route.startsWith(TRPC_ROUTE_PREFIX) ? `trpc ${route.slice(TRPC_ROUTE_PREFIX.length)}` : `${method} ${route}`;
};

/** `SELECT pets`: the statement's operation and its first table, as the database conventions name spans. */
const statementSummary = (statement: string) => {
  const operation = /^\s*(\w+)/.exec(statement)?.[1]?.toUpperCase() ?? 'SQL';
  const table = /\b(?:from|into|update)\s+"?(\w+)"?/i.exec(statement)?.[1];
  return { operation, table, name: table ? `${operation} ${table}` : operation };
};

const failedInside = (error: unknown) => !(error instanceof TRPCError) || error.code === 'INTERNAL_SERVER_ERROR';

/** Each operation's procedure name, for its span. */
const names = new Map<Operation, string>(Object.entries(operations).map(([name, operation]) => [operation, name]));

/**
 * The server span of a request, started as it arrives: an incoming W3C `traceparent` (and
 * `tracestate`) is continued, and the span is named by its method until its route is known.
 */
export const startServerSpan = (tracer: Tracer, req: IncomingMessage) => {
  const method = req.method ?? 'GET';
  const url = req.url ?? '/';
  const queryStart = url.indexOf('?');
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const span = tracer.startSpan(
    method,
    {
      kind: SpanKind.SERVER,
      attributes: {
        [ATTR_HTTP_REQUEST_METHOD]: method,
        [ATTR_URL_SCHEME]: 'http',
        [ATTR_URL_PATH]: queryStart === -1 ? url : url.slice(0, queryStart),
        ...(queryStart !== -1 && { [ATTR_URL_QUERY]: url.slice(queryStart + 1) }),
        ...(req.socket.remoteAddress && { [ATTR_CLIENT_ADDRESS]: req.socket.remoteAddress }),
        ...(req.headers['user-agent'] && { [ATTR_USER_AGENT_ORIGINAL]: req.headers['user-agent'] }),
        'network.protocol.version': req.httpVersion,
      },
    },
    parent,
  );
  return { span, parent, method };
};

const requestObserver = (tracer: Tracer): RequestObserver => ({
  serve: (serve) => (context) => {
    const { span, parent, method } = startServerSpan(tracer, context.req);
    const { traceId, spanId } = span.spanContext();
    context.traceIds = { trace_id: traceId, span_id: spanId };
    listenForFinish(context, (done, status) => {
      span.updateName(spanNameOf(method, done.route));
      if (done.route !== undefined) span.setAttribute(ATTR_HTTP_ROUTE, done.route);
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    return otelContext.with(trace.setSpan(parent, span), () => serve(context));
  },
  call: (call) => (operation, ctx, input) => {
    const name = names.get(operation) ?? 'unknown';
    return tracer.startActiveSpan(
      `procedure ${name}`,
      { attributes: { 'rpc.system': 'trpc', 'rpc.method': name } },
      (span) =>
        call(operation, ctx, input).then(
          (result) => {
            span.end();
            return result;
          },
          (error: unknown) => {
            if (failedInside(error)) {
              span.recordException(error instanceof Error ? error : 'procedure failed');
              span.setStatus({ code: SpanStatusCode.ERROR });
            }
            span.end();
            throw error;
          },
        ),
    );
  },
});

const statementObserver = (tracer: Tracer): StatementObserver => {
  const summaries = new Map<string, ReturnType<typeof statementSummary>>();
  const done = () => undefined;
  return (system, statement) => {
    const active = otelContext.active();
    // Statements outside a request (the idempotency records' pruning) are not traced.
    if (!trace.getSpan(active)) return done;
    let summary = summaries.get(statement);
    if (!summary) summaries.set(statement, (summary = statementSummary(statement)));
    const span = tracer.startSpan(
      summary.name,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [ATTR_DB_SYSTEM_NAME]: system,
          [ATTR_DB_QUERY_TEXT]: statement,
          [ATTR_DB_OPERATION_NAME]: summary.operation,
          ...(summary.table && { [ATTR_DB_COLLECTION_NAME]: summary.table }),
        },
      },
      active,
    );
    return (error) => {
      if (error !== undefined) {
        span.recordException(error instanceof Error ? error : 'statement failed');
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    };
  };
};

/**
 * Exports to the collector that may be under way at once, each a batch of up to 512 spans (the
 * SDK's `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`): a collector that does not answer holds this many batches
 * until each times out (`OTEL_EXPORTER_OTLP_TIMEOUT`, 10 s), and the spans that follow wait in the
 * SDK's queue (`OTEL_BSP_MAX_QUEUE_SIZE`, 2048), past which they are dropped. The SDK's own 30
 * would let a stalled collector hold some 15,000 spans.
 */
export const TRACE_EXPORTS_IN_FLIGHT = 4;

/**
 * Registers the OpenTelemetry SDK for this process: a tracer provider with the AsyncLocalStorage
 * context manager and the W3C propagator, exporting in batches over OTLP/HTTP (JSON). Loaded only
 * when tracing is on, so a service without it never loads the SDK.
 */
export const startTracing = async (): Promise<Tracing> => {
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { defaultResource, detectResources, envDetector }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const provider = new NodeTracerProvider({
    resource: defaultResource().merge(detectResources({ detectors: [envDetector] })),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ concurrencyLimit: TRACE_EXPORTS_IN_FLIGHT }))],
  });
  provider.register();
  const tracer = provider.getTracer('petstore');
  return {
    observer: requestObserver(tracer),
    onStatement: statementObserver(tracer),
    shutdown: () => provider.shutdown(),
  };
};
