import { z } from 'zod';
import { toTrpcError } from '../storage/storage-unavailable.js';
import { type AuthedContext, procedure } from '../trpc.js';
import { authorize } from './call-operation.js';
import type { OperationDefinition } from './operation.js';

/** Past this middleware `ctx.principal` is known and holds the procedure's scope. */
export const authedProcedure = procedure.use(({ ctx, meta, next }) => next({ ctx: authorize(ctx, meta?.scope) }));

/**
 * The result schema tRPC is given: the component's type, described by reference. tRPC would check
 * every result against a real schema; results come from our own storage, which only holds input
 * that passed validation, so this one accepts them as they are rather than walking every animal
 * of every page again.
 */
export const resultOf = <T>(schema: z.ZodType<T>) => {
  const id = schema.meta()?.id;
  if (typeof id !== 'string') throw new Error('a result schema needs a component id (.meta({ id }))');
  return z.custom<T>().meta({ override: { $ref: `#/components/schemas/${id}` } });
};

const withRoute = <Input extends z.ZodType, Result>(definition: OperationDefinition<Input, Result>) =>
  authedProcedure.meta(definition.meta).input(definition.input).output(resultOf(definition.output));

/**
 * The resolver as the router's procedure runs it under tRPC's own adapter: a store error it meets
 * is the TRPCError its answer shows (503 for an unavailable database), as the transports render it.
 */
const asProcedure =
  <Input extends z.ZodType, Result>({ resolve }: OperationDefinition<Input, Result>) =>
  // tRPC types the input it hands over through the parser, which it cannot work out for a generic
  // schema; the schema is the definition's own.
  ({ ctx, input }: { ctx: AuthedContext; input: unknown }) =>
    resolve({ ctx, input: input as z.output<Input> }).catch((cause: unknown) => {
      throw toTrpcError(cause);
    }) as never;

/** A read: its procedure answers GET on both transports. */
export const defineQuery = <Input extends z.ZodType, Result>(definition: OperationDefinition<Input, Result>) => ({
  ...definition,
  type: 'query' as const,
  procedure: withRoute(definition).query(asProcedure(definition)),
  compiledInput: z.compile(definition.input),
});

/** A change: its procedure answers POST on both transports. */
export const defineMutation = <Input extends z.ZodType, Result>(definition: OperationDefinition<Input, Result>) => ({
  ...definition,
  type: 'mutation' as const,
  procedure: withRoute(definition).mutation(asProcedure(definition)),
  compiledInput: z.compile(definition.input),
});
