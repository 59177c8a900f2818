/** What a ledger holds for one key: the request's fingerprint and, once created, the animal. */
export interface LedgerEntry {
  fingerprint: string;
  /** Absent while the request that claimed the key is still creating its animal. */
  petId?: number;
}

/**
 * Where idempotency records live when several instances must share them outside the database
 * (Redis). Without one, records are written in the database, in the insert's own transaction.
 */
export interface IdempotencyLedger {
  /**
   * Atomically records the key as being created by this request, unless something holds it
   * already: returns undefined when this request now holds the key, or what holds it.
   */
  claim(id: string, fingerprint: string, pendingForMs: number): Promise<LedgerEntry | undefined>;
  /** Records the created animal for the rest of the window. */
  settle(id: string, entry: Required<LedgerEntry>, keepForMs: number): Promise<void>;
  /** Gives the key up after a failed create, so a retry can try again. */
  release(id: string): Promise<void>;
  read(id: string): Promise<LedgerEntry | undefined>;
}
