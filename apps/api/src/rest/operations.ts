import { type AppRouter, type ProcedureMeta, appRouter } from '@petstore/core';
import type { OpenApiMethod } from 'trpc-to-openapi';

/** A procedure as the REST interface serves it, read once from its `openapi` meta. */
export interface RestOperation {
  procedure: string;
  method: OpenApiMethod;
  /** The OpenAPI path template, e.g. `/pets/{petId}`. */
  path: string;
  meta: ProcedureMeta;
}

export const restOperations = (router: AppRouter = appRouter): RestOperation[] =>
  Object.entries(router._def.procedures).flatMap(([procedure, { _def }]) => {
    const meta = _def.meta as ProcedureMeta | undefined;
    return meta?.openapi ? [{ procedure, method: meta.openapi.method, path: meta.openapi.path, meta }] : [];
  });

/** `/pets/{petId}` → `/pets/:petId`. */
export const toExpressPath = (template: string) => template.replace(/\{(\w+)\}/g, ':$1');

export const METHODS_WITH_BODY: ReadonlySet<OpenApiMethod> = new Set(['POST', 'PUT', 'PATCH']);
