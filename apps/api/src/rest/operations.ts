import type { ProcedureMeta } from '@petstore/core';
import type { OpenApiMethod } from 'trpc-to-openapi';
import type { ProcedureEntry } from '../procedures/procedure-table.js';

export const REST_PREFIX = '/v1';

/** A procedure as the REST interface serves it, read once from its `openapi` meta. */
export interface RestOperation {
  entry: ProcedureEntry;
  method: OpenApiMethod;
  /** The OpenAPI path template, e.g. `/pets/{petId}`. */
  path: string;
  meta: ProcedureMeta;
}

export const METHODS_WITH_BODY: ReadonlySet<OpenApiMethod> = new Set(['POST', 'PUT', 'PATCH']);

/** The procedures that have an `openapi` meta, as REST operations. */
export const restOperations = (table: ReadonlyMap<string, ProcedureEntry>): RestOperation[] =>
  [...table.values()].flatMap((entry) => {
    const { meta } = entry;
    if (!meta.openapi) return [];
    return [{ entry, method: meta.openapi.method, path: meta.openapi.path, meta }];
  });
