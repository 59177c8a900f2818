import { type AppRouter, type Context, type ProcedureMeta, appRouter } from '@petstore/core';
import { type TRPCProcedureType, callTRPCProcedure } from '@trpc/server';

/** A procedure as both transports see it: its name, its kind and its meta. */
export interface ProcedureEntry {
  name: string;
  type: TRPCProcedureType;
  meta: ProcedureMeta;
  /** The input schema's component name (`NewPet`), from its zod meta; used by the document. */
  inputSchemaName: string | undefined;
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
      return [name, { name, type: _def.type, meta: (_def.meta ?? {}) as ProcedureMeta, inputSchemaName: schemaId(_def.inputs[0]) }];
    }),
  );

/**
 * Runs one procedure (its middlewares, input validation and resolver) the way tRPC's own adapters
 * do, through its public `callTRPCProcedure`.
 */
export const callProcedure = (entry: ProcedureEntry, ctx: Context, input: unknown, batchIndex = 0): Promise<unknown> =>
  callTRPCProcedure({
    router: appRouter,
    path: entry.name,
    type: entry.type,
    ctx,
    getRawInput: () => Promise.resolve(input),
    signal: undefined,
    batchIndex,
  });
