export * from './db/index.js';
export * from './error-body.js';
export * from './keys/api-keys.js';
export * from './keys/events.js';
export * from './keys/scopes.js';
export * from './maybe-promise.js';
export * from './pets/integer-param.js';
export * from './pets/list/cursor.js';
export * from './pets/list/list-query.js';
export { PetPage } from './pets/list/page.js';
export * from './pets/pet.js';
export * from './router.js';
export {
  type Operation,
  callOperation,
  isReplayed,
  markReplayed,
  authedProcedure,
  authorize,
  insufficientScope,
  createCallerFactory,
  type AuthedContext,
  type Context,
  type Deprecation,
  type ProcedureMeta,
} from './trpc.js';
