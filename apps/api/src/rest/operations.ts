import { type AppRouter, type ProcedureMeta, appRouter } from '@petstore/core';
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
}

export const METHODS_WITH_BODY: ReadonlySet<OpenApiMethod> = new Set(['POST', 'PUT', 'PATCH']);

const schemaId = (schema: unknown): string | undefined => {
  const id = (schema as { meta?: () => { id?: unknown } | undefined }).meta?.()?.id;
  return typeof id === 'string' ? id : undefined;
};

export const restOperations = (router: AppRouter = appRouter): RestOperation[] =>
  Object.entries(router._def.procedures).flatMap(([procedure, { _def }]) => {
    const meta = _def.meta as ProcedureMeta | undefined;
    if (!meta?.openapi) return [];
    const { method, path } = meta.openapi;
    const bodySchemaName = METHODS_WITH_BODY.has(method) ? schemaId(_def.inputs[0]) : undefined;
    return [{ procedure, method, path, meta, bodySchemaName }];
  });

/** `/pets/{petId}` → `/pets/:petId`. */
export const toExpressPath = (template: string) => template.replace(/\{(\w+)\}/g, ':$1');
