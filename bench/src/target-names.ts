/** The targets' names in the tables, the results file and the verdicts. */
export const REST = 'REST /v1';
export const TRPC = 'tRPC /trpc';
export const FASTIFY_PEER = 'Fastify + zod peer';
export const EXPRESS_PEER = 'Express + zod peer';
export const BASELINE = 'node:http baseline';

/** The same contract subset written the way each framework's docs recommend. */
export const PEERS = [FASTIFY_PEER, EXPRESS_PEER] as const;
