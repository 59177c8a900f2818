/** How long a request may wait for the database; past either bound it fails as unavailable (503). */
export interface DatabaseTimeouts {
  /** For a connection (PostgreSQL's pool). */
  connectMs: number;
  /** For one statement to run (PostgreSQL), or for SQLite's write lock. */
  statementMs: number;
}

/** The bounds unless the service's settings say otherwise. */
export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = { connectMs: 5_000, statementMs: 5_000 };
