export { openPetstore, createPetstore, type Petstore } from './petstore.js';
export { readConfig, type Config } from './config.js';
export { createLogger } from './logger.js';
export { startServer, type RunningServer, type ServerOptions } from './server/server.js';
