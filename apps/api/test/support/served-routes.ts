import { MAX_BATCH_SIZE } from '@petstore/core';

/** One thing the service serves, as the request a hostile client would send for it. */
export interface ServedRoute {
  /** `GET /v1/pets`, `tRPC streamed batch POST listPets`, `GET /docs`… */
  name: string;
  /** Which listener serves it. */
  port: number;
  /** The request on the wire, keep-alive, with `id` as its request id. */
  request: (id: string) => string;
}

interface DocumentParameter {
  name: string;
  in: string;
  schema?: { maximum?: number; minimum?: number; type?: string };
}
interface DocumentSchema {
  type?: string;
  properties?: Record<string, DocumentSchema>;
  required?: string[];
  enum?: unknown[];
  maxLength?: number;
  minimum?: number;
}
interface DocumentOperation {
  operationId?: string;
  parameters?: DocumentParameter[];
  requestBody?: { content?: Record<string, { schema?: DocumentSchema }> };
}
type OpenApiDocument = { paths: Record<string, Record<string, DocumentOperation>> };

/** The largest value the document allows a parameter, else its least, else 1: what makes the largest answer. */
const largest = ({ schema }: DocumentParameter): number => schema?.maximum ?? schema?.minimum ?? 1;

/** A body the document's schema takes: each required property at its longest or least, the first of an enum. */
const valueOf = (schema: DocumentSchema | undefined): unknown => {
  if (schema?.enum) return schema.enum[0];
  if (schema?.type === 'object') return Object.fromEntries((schema.required ?? []).map((name) => [name, valueOf(schema.properties?.[name])]));
  if (schema?.type === 'string') return 'n'.repeat(schema.maxLength ?? 8);
  if (schema?.type === 'integer' || schema?.type === 'number') return schema.minimum ?? 1;
  if (schema?.type === 'boolean') return true;
  return null;
};

const wire = (method: string, path: string, headers: Record<string, string>, id: string, body = '') =>
  `${method} ${path} HTTP/1.1\r\nHost: x\r\nX-Request-Id: ${id}\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}${body === '' ? '' : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`}\r\n${body}`;

/** The paths a page links to on its own origin (`href`, `src`). */
const linksOf = (html: string) => [...html.matchAll(/(?:href|src)="(\/[^"]*)"/g)].map(([, link]) => link ?? '/');

/**
 * Everything the service serves, found as a client finds it: the REST operations of its OpenAPI
 * document (each at its largest answer), each again over tRPC as a plain batch and a streamed
 * one of MAX_BATCH_SIZE calls, by GET and by POST (queries too: method override is on), the pages
 * the root and the docs page link to, and `/metrics` on the metrics listener. A route the service
 * starts to serve joins by being served.
 */
export const servedRoutes = async (url: string, metricsUrl: string, key: string, existingId: number): Promise<ServedRoute[]> => {
  const port = Number(new URL(url).port);
  const authorization = { Authorization: `Bearer ${key}` };
  const document = (await (await fetch(`${url}/v1/openapi.json`)).json()) as OpenApiDocument;
  const routes: ServedRoute[] = [];
  for (const [template, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const parameters = operation.parameters ?? [];
      const pathValues = Object.fromEntries(parameters.filter((parameter) => parameter.in === 'path').map((parameter) => [parameter.name, existingId]));
      const queryValues = Object.fromEntries(parameters.filter((parameter) => parameter.in === 'query' && parameter.schema?.type !== 'string').map((parameter) => [parameter.name, largest(parameter)]));
      const body = valueOf(operation.requestBody?.content?.['application/json']?.schema) as Record<string, unknown> | null;
      const path = `/v1${template.replace(/\{(\w+)\}/g, (_, name: string) => String(pathValues[name]))}`;
      const query = new URLSearchParams(Object.entries(queryValues).map(([name, value]): [string, string] => [name, String(value)])).toString();
      const upper = method.toUpperCase();
      routes.push({ name: `${upper} /v1${template}`, port, request: (id) => wire(upper, `${path}${query ? `?${query}` : ''}`, authorization, id, body ? JSON.stringify(body) : '') });
      const procedure = operation.operationId;
      if (procedure === undefined) continue;
      // The procedure's input: what REST takes in the path, the query and the body together.
      const input = { ...pathValues, ...queryValues, ...(body ?? {}) };
      const inputs = JSON.stringify(Object.fromEntries(Array.from({ length: MAX_BATCH_SIZE }, (_, index) => [index, input])));
      const batchPath = `/trpc/${Array.from({ length: MAX_BATCH_SIZE }, () => procedure).join(',')}?batch=1`;
      for (const streamed of [false, true]) {
        const headers = streamed ? { ...authorization, 'trpc-accept': 'application/jsonl' } : authorization;
        const kind = `tRPC ${streamed ? 'streamed' : 'plain'} batch`;
        if (upper === 'GET') routes.push({ name: `${kind} GET ${procedure}`, port, request: (id) => wire('GET', `${batchPath}&input=${encodeURIComponent(inputs)}`, headers, id) });
        routes.push({ name: `${kind} POST ${procedure}`, port, request: (id) => wire('POST', batchPath, headers, id, inputs) });
      }
    }
  }
  const pages = new Set(['/']);
  for (const linked of linksOf(await (await fetch(url)).text())) pages.add(linked);
  for (const page of [...pages]) {
    const response = await fetch(`${url}${page}`);
    if ((response.headers.get('content-type') ?? '').startsWith('text/html')) for (const linked of linksOf(await response.text())) pages.add(linked);
    else await response.arrayBuffer();
  }
  for (const page of pages) routes.push({ name: `GET ${page}`, port, request: (id) => wire('GET', page, {}, id) });
  const metrics = new URL(metricsUrl);
  routes.push({ name: `GET ${metrics.pathname} (metrics port)`, port: Number(metrics.port), request: (id) => wire('GET', metrics.pathname, {}, id) });
  return routes;
};
