// The bare PostgreSQL server behind a pooler in transaction mode: its statements unnamed (bare-pg-server.ts).
import { serveBarePostgres } from './bare-pg-server.js';

serveBarePostgres({ named: false });
