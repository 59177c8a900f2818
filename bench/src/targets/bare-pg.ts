// The bare PostgreSQL server on a direct address: its statements named (bare-pg-server.ts).
import { serveBarePostgres } from './bare-pg-server.js';

serveBarePostgres({ named: true });
