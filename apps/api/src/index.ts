export { openPetstore, createPetstore, type Petstore } from './petstore.js';
export { readConfig, type Config } from './settings/config.js';
export { createLogger } from './settings/logger.js';
export { startServer, type RunningServer, type ServerOptions } from './server.js';
