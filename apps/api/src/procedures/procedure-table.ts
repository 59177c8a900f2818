import { type AppRouter, type Context, type Handler, type ProcedureMeta, appRouter, callHandler, handlers } from '@petstore/core';
import { type TRPCProcedureType, callTRPCProcedure } from '@trpc/server';

/** A procedure as both transports see it: its name, its kind and its meta. */
export interface ProcedureEntry {
  name: string;
  type: TRPCProcedureType;
  meta: ProcedureMeta;
  /** The input schema's component name (`NewPet`), from its zod meta; used by the document. */
  inputSchemaName: string | undefined;
  /** What the procedure runs, callable without tRPC's middleware chain; absent: through tRPC. */
  handler: Handler | undefined;
}

const schemaId = (schema: unknown): string | undefined => {
  const id = (schema as { meta?: () => { id?: unknown } | undefined } | undefined)?.meta?.()?.id;
  return typeof id === 'string' ? id : undefined;
};

/**
 * Every procedure of the router, read once at start-up. tRPC offers no public way to list a
 * router's procedures with their meta, so this is the one place that reads its `_def` (as
 * trpc-to-openapi does to write the document); nothing on the request path does.
 */
export const procedureTable = (router: AppRouter = appRouter): ReadonlyMap<string, ProcedureEntry> =>
  new Map(
    Object.entries(router._def.procedures).map(([name, procedure]) => {
      const { _def } = procedure;
      const meta = (_def.meta ?? {}) as ProcedureMeta;
      const handler = (handlers as Record<string, Handler | undefined>)[name];
      return [name, { name, type: _def.type, meta, inputSchemaName: schemaId(_def.inputs[0]), handler }];
    }),
  );

/**
 * Runs one procedure: its key check, input validation and resolver. Through its handler when it
 * has one (`callHandler`, without tRPC's middleware chain); otherwise the way tRPC's own adapters
 * do, through the public `callTRPCProcedure`.
 */
export const callProcedure = (entry: ProcedureEntry, ctx: Context, input: unknown, batchIndex = 0): Promise<unknown> =>
  entry.handler ? callHandler(entry.handler, ctx, input, entry.meta.scope) : callTRPCProcedure({
    router: appRouter,
    path: entry.name,
    type: entry.type,
    ctx,
    getRawInput: () => Promise.resolve(input),
    signal: undefined,
    batchIndex,
  });
