export * from './db/index.js';
export * from './keys/api-keys.js';
export { PetPage } from './pets/page.js';
export * from './router/index.js';
export * from './schemas/index.js';
export {
  createCallerFactory,
  type Context,
  type Deprecation,
  type ProcedureMeta,
  type ResponseNotes,
} from './trpc.js';
