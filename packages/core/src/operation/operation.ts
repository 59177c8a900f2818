import type { z } from 'zod';
import type { AuthedContext, ProcedureMeta } from '../trpc.js';

/**
 * One operation of the interface: who may call it and how REST shows it (`meta`), its input, the
 * component its result is (`output`), and what it does (`resolve`). Its tRPC procedure is built
 * from these (`define-operation.ts`); the service's transports run the same pieces through
 * `callOperation` (`call-operation.ts`).
 */
export interface OperationDefinition<Input extends z.ZodType, Result> {
  meta: ProcedureMeta;
  input: Input;
  /** The result's schema, a named component (`.meta({ id })`): its type and its place in the document. */
  output: z.ZodType<Result>;
  resolve(this: void, opts: { ctx: AuthedContext; input: z.output<Input> }): Promise<Result>;
}

/** Any operation, as the transports see it. */
export interface Operation {
  type: 'query' | 'mutation';
  meta: ProcedureMeta;
  input: z.ZodType;
  /**
   * `input` as the transports run it: zod's own compiled parser for that schema (`z.compile`), which
   * accepts, refuses and transforms exactly as the schema does; a refusal is worked out again by the
   * schema itself, so its issues are the schema's own. The generic parser keeps per-call bookkeeping
   * (WeakMaps for cyclic inputs) that outlived requests waiting on PostgreSQL
   * (docs/decisions/2026-11-26-compiled-input-parsers.md).
   */
  compiledInput: z.ZodType;
  output: z.ZodType;
  // A method, so that an operation with a narrower input is still an Operation.
  resolve(this: void, opts: { ctx: AuthedContext; input: unknown }): Promise<unknown>;
}
