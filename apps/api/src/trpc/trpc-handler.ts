import { parse } from 'node:querystring';
import { toTrpcErrorShape } from '@petstore/core';
import { TRPCError, getTRPCErrorFromUnknown } from '@trpc/server';
import { getHTTPStatusCode } from '@trpc/server/http';
import type { TRPCResponse } from '@trpc/server/rpc';
import { type Admit, refuseScope } from '../admission/admit.js';
import type { Exchange, FlatHeaders } from '../front-door/exchange.js';
import { readJsonBody } from '../front-door/read-json-body.js';
import { type ProcedureEntry, callProcedure } from '../procedures/procedure-table.js';

export const TRPC_PREFIX = '/trpc';

/** The most calls one batched request may carry; more are refused with a 400. */
export const MAX_BATCH_SIZE = 50;

/** The route of a request carrying several calls (each call has its own procedure span). */
const BATCH_ROUTE = `${TRPC_PREFIX}/{batch}`;

/** Which HTTP method calls which kind of procedure, as tRPC's own HTTP adapters have it. */
const METHOD_OF = { query: 'GET', mutation: 'POST', subscription: 'GET' } as const;

type Item = TRPCResponse<unknown, ReturnType<typeof toTrpcErrorShape>>;

interface Call {
  name: string;
  input: unknown;
}

const errorItem = (error: TRPCError): Item => ({ error: toTrpcErrorShape(error) });

const parseInputs = (raw: unknown, count: number, batch: boolean): unknown[] => {
  if (!batch) return [raw];
  if (raw !== undefined && (raw === null || typeof raw !== 'object' || Array.isArray(raw))) {
    throw new TRPCError({ code: 'BAD_REQUEST', message: 'A batch input must be an object keyed by call index.' });
  }
  const byIndex = raw as Record<string, unknown> | undefined;
  return Array.from({ length: count }, (_, index) => byIndex?.[String(index)]);
};

/** `listPets,getPet` → its names; a name that is not valid percent-encoding is kept as sent (and not found). */
const procedureNames = (path: string) =>
  path.split(',').map((name) => {
    try {
      return decodeURIComponent(name);
    } catch {
      return name;
    }
  });

/**
 * `/trpc` in tRPC's HTTP wire format (the one `httpLink` and `httpBatchLink` speak, without a
 * transformer): `GET /trpc/a,b?batch=1&input={"0":…,"1":…}` for queries, `POST` with a JSON body
 * for mutations, one result or error envelope per call, the status from tRPC's own rule (one
 * status, or 207 when a batch's differ). tRPC's adapters build a Fetch `Request`, `Headers` and an
 * `AbortController` per request before any procedure runs; this reads the node request directly
 * and calls the procedures through tRPC's public `callTRPCProcedure`. Streaming responses and
 * subscriptions are not offered: no procedure needs them.
 */
export const createTrpcHandler = ({
  admit,
  table,
  call: invoke = callProcedure,
}: {
  admit: Admit;
  table: ReadonlyMap<string, ProcedureEntry>;
  /** Runs a procedure: `callProcedure`, or it wrapped by metrics or tracing. */
  call?: typeof callProcedure;
}) => {
  // A lone call is labelled with its procedure; a batch only as a batch, so labels stay few.
  const routeNames = new Map([...table.keys()].map((name) => [name, `${TRPC_PREFIX}/${name}`]));
  const send = (exchange: Exchange, items: Item[], batch: boolean, headers: FlatHeaders) => {
    const json = batch ? items : items[0];
    if (json === undefined) throw new Error('a tRPC response needs at least one item');
    exchange.sendJson(getHTTPStatusCode(json), JSON.stringify(json), headers);
  };
  const refuseAll = (exchange: Exchange, error: TRPCError, count: number, batch: boolean, headers: FlatHeaders = []) => {
    if (error.code === 'INTERNAL_SERVER_ERROR') exchange.log.error({ err: error.cause ?? error }, 'request failed');
    send(exchange, Array.from({ length: batch ? count : 1 }, () => errorItem(error)), batch, headers);
  };

  /** `outOfScope`: the call's 403 when its key lacks the procedure's scope; `allow` gathers the methods calls should have used. */
  const runCall = async (exchange: Exchange, call: Call, index: number, method: string, admitted: { ctx: Parameters<typeof callProcedure>[1] }, allow: string[], outOfScope: TRPCError | undefined): Promise<Item> => {
    const entry = table.get(call.name);
    try {
      if (!entry) throw new TRPCError({ code: 'NOT_FOUND', message: `No procedure found on path "${call.name.slice(0, 100)}"` });
      if (METHOD_OF[entry.type] !== method) {
        allow.push(METHOD_OF[entry.type]);
        throw new TRPCError({ code: 'METHOD_NOT_SUPPORTED', message: `Unsupported ${method}-request to ${entry.type} procedure at path "${call.name}"` });
      }
      if (outOfScope) return errorItem(outOfScope);
      return { result: { data: await invoke(entry, admitted.ctx, call.input, index) } };
    } catch (cause) {
      const error = getTRPCErrorFromUnknown(cause);
      if (error.code === 'INTERNAL_SERVER_ERROR') exchange.log.error({ err: error.cause ?? error, procedure: call.name }, 'procedure failed');
      return errorItem(error);
    }
  };

  return async (exchange: Exchange): Promise<void> => {
    const { req } = exchange;
    const url = req.url ?? '/';
    const queryStart = url.indexOf('?');
    const names = procedureNames(url.slice(TRPC_PREFIX.length + 1, queryStart === -1 ? undefined : queryStart));
    const query = parse(queryStart === -1 ? '' : url.slice(queryStart + 1));
    const batch = query.batch === '1';
    const method = req.method ?? 'GET';
    exchange.route = names.length === 1 ? routeNames.get(names[0] ?? '') : BATCH_ROUTE;

    if (method !== 'GET' && method !== 'POST') {
      refuseAll(exchange, new TRPCError({ code: 'METHOD_NOT_SUPPORTED', message: `${method} is not supported on ${TRPC_PREFIX}; use GET or POST.` }), names.length, batch, ['Allow', 'GET, POST']);
      return;
    }
    if (batch && names.length > MAX_BATCH_SIZE) {
      refuseAll(exchange, new TRPCError({ code: 'BAD_REQUEST', message: `A batch may carry at most ${MAX_BATCH_SIZE} calls; this one has ${names.length}.` }), 1, false);
      return;
    }
    if (!batch && names.length > 1) {
      refuseAll(exchange, new TRPCError({ code: 'BAD_REQUEST', message: 'Several procedures need ?batch=1.' }), 1, false);
      return;
    }

    // The key and the quota come first, as on REST; each call of a batch spends one request.
    const admission = await admit(req, names.length);
    if (!admission.admitted) {
      refuseAll(exchange, admission.error, names.length, batch, admission.headers);
      return;
    }

    // Each call's scope, known from its name: checked before any input is read, as on REST.
    const scopeRefusals = names.map((name) => {
      const entry = table.get(name);
      return entry && METHOD_OF[entry.type] === method ? refuseScope(admission.ctx, entry.meta.scope) : undefined;
    });
    // One challenge per response: a batch refused several scopes names the first.
    const challenge = scopeRefusals.find((refusal) => refusal !== undefined)?.headers ?? [];
    if (scopeRefusals.every((refusal) => refusal !== undefined)) {
      send(exchange, scopeRefusals.map((refusal) => errorItem(refusal.error)), batch, [...admission.headers, ...challenge]);
      return;
    }

    let raw: unknown;
    if (method === 'GET') {
      const input = query.input;
      try {
        raw = typeof input === 'string' ? JSON.parse(input) : undefined;
      } catch {
        refuseAll(exchange, new TRPCError({ code: 'PARSE_ERROR', message: 'The input parameter is not valid JSON.' }), names.length, batch, admission.headers);
        return;
      }
    } else {
      const body = await readJsonBody(req, { objectOnly: false });
      if (!body.ok) {
        const headers = req.complete ? admission.headers : [...admission.headers, 'Connection', 'close'];
        refuseAll(exchange, body.error, names.length, batch, headers);
        return;
      }
      raw = body.value;
    }
    let inputs: unknown[];
    try {
      inputs = parseInputs(raw, names.length, batch);
    } catch (error) {
      refuseAll(exchange, getTRPCErrorFromUnknown(error), names.length, batch, admission.headers);
      return;
    }

    const allow: string[] = [];
    const items = await Promise.all(names.map((name, index) => runCall(exchange, { name, input: inputs[index] }, index, method, admission, allow, scopeRefusals[index]?.error)));
    const headers = allow.length > 0 || challenge.length > 0
      ? [...admission.headers, ...(allow.length > 0 ? ['Allow', [...new Set(allow)].join(', ')] : []), ...challenge]
      : admission.headers;
    send(exchange, items, batch, headers);
  };
};
