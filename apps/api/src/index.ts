export { createApp, type AppDependencies } from './app.js';
export { readConfig, type Config } from './config.js';
export { createLogger } from './logger.js';
export { startServer, type RunningServer } from './server.js';
