export * from './db/index.js';
export * from './keys/api-keys.js';
export * from './keys/events.js';
export * from './keys/scopes.js';
export { PetPage } from './pets/page.js';
export * from './router/index.js';
export * from './schemas/index.js';
export {
  authedProcedure,
  callHandler,
  insufficientScope,
  createCallerFactory,
  type AuthedContext,
  type Context,
  type Handler,
  type Deprecation,
  type ProcedureMeta,
  type ResponseNotes,
} from './trpc.js';
