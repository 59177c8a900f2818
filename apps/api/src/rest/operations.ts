import { type AppRouter, type Context, type ProcedureMeta, appRouter } from '@petstore/core';
import type { OpenApiMethod } from 'trpc-to-openapi';

/** A procedure as the REST interface serves it, read once from its `openapi` meta. */
export interface RestOperation {
  procedure: string;
  method: OpenApiMethod;
  /** The OpenAPI path template, e.g. `/pets/{petId}`. */
  path: string;
  meta: ProcedureMeta;
  /** The component name of the request body's schema (`NewPet`), from its zod meta. */
  bodySchemaName?: string | undefined;
  /** Runs the procedure (its middlewares, input validation and resolver) for one request. */
  call(ctx: Context, input: unknown): Promise<unknown>;
}

export const METHODS_WITH_BODY: ReadonlySet<OpenApiMethod> = new Set(['POST', 'PUT', 'PATCH']);

const schemaId = (schema: unknown): string | undefined => {
  const id = (schema as { meta?: () => { id?: unknown } | undefined }).meta?.()?.id;
  return typeof id === 'string' ? id : undefined;
};

export const restOperations = (router: AppRouter = appRouter): RestOperation[] =>
  Object.entries(router._def.procedures).flatMap(([name, procedure]) => {
    const { _def } = procedure;
    const meta = _def.meta as ProcedureMeta | undefined;
    if (!meta?.openapi) return [];
    const { method, path } = meta.openapi;
    const bodySchemaName = METHODS_WITH_BODY.has(method) ? schemaId(_def.inputs[0]) : undefined;
    // The procedure is found once, here, and called the way tRPC's own adapters call it. A caller
    // from `createCaller` per request would build a proxy and look the path up every time.
    const call = (ctx: Context, input: unknown) =>
      procedure({ ctx, getRawInput: () => Promise.resolve(input), path: name, type: _def.type, signal: undefined, batchIndex: 0 });
    return [{ procedure: name, method, path, meta, bodySchemaName, call }];
  });
