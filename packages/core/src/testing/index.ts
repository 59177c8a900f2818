export { TEST_POSTGRES_URL, createScratchPostgresDatabase, type ScratchDatabase } from './scratch-postgres.js';
export { ENGINES, type Engine, type OpenedDatabase } from './engines.js';
