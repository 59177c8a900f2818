/**
 * What both sides of the wire agree on, stated once: the service serves them, the OpenAPI document
 * and the typed client read them from here.
 */

/** Where the REST interface lives: the contract's version root. */
export const REST_PREFIX = '/v1';

/** Where tRPC's wire format is served. */
export const TRPC_PREFIX = '/trpc';

/** The most calls one batched tRPC request may carry; tRPC refuses larger batches with a 400. */
export const MAX_BATCH_SIZE = 50;
