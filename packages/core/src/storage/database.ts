/** The availability an animal is stored with (the interface's PetStatus). */
export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export type PetStatusValue = (typeof PET_STATUSES)[number];

/** An animal as the store keeps it; the domain's `Pet` schema describes exactly this (pets/pet.test.ts). */
export interface PetRecord {
  id: number;
  name: string;
  categoryId: number;
  status: PetStatusValue;
}

/** An animal to store: all but its id, which the store assigns. */
export type NewPetRecord = Omit<PetRecord, 'id'>;

/**
 * What the audit trail records: a key created, rotated (the entry names the new key and the one it
 * replaced), revoked, and a rotated-in key's first use, which shows the app now holds the new key.
 */
export const API_KEY_EVENTS = ['created', 'rotated', 'revoked', 'first_use'] as const;
export type ApiKeyEventName = (typeof API_KEY_EVENTS)[number];

/**
 * Everything the procedures need from storage. Each SQL engine implements it once; the procedures
 * never see which one they run on.
 */
export interface Database {
  readonly pets: PetRecords;
  readonly apiKeys: ApiKeyRecords;
  /** Resolves when the database answers a trivial query (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** How the connection pool is used, for metrics; absent where there is no pool (SQLite). */
  poolUse?(): PoolUse;
}

export interface PoolUse {
  /** Connections open, idle or not. */
  total: number;
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
}

export interface PetPageQuery {
  /** Only animals with a greater id; 0 for the first page. */
  afterId: number;
  status?: PetStatusValue | undefined;
  /** At most this many animals, by ascending id. */
  take: number;
}

/**
 * Identifies one idempotent create: a key, scoped to what the API key that sent it stands for (its
 * lineage), so that a retry sent with the key a rotation made finds the create of the key it replaced.
 */
export interface IdempotentCreate {
  keyLineage: string;
  key: string;
  /** Identifies the request's content, so a different body under the same key is noticed. */
  fingerprint: string;
  /** When the request arrived: the record's creation time, and what its age is measured from. */
  now: Date;
}

export type IdempotentOutcome =
  | { outcome: 'created' | 'replayed'; pet: PetRecord }
  | { outcome: 'mismatch' };

export interface PetRecords {
  page(query: PetPageQuery): Promise<PetRecord[]>;
  /** `signal`: aborted when the caller has gone; a create not yet sent to the database then never is. */
  insert(pet: NewPetRecord, signal?: AbortSignal): Promise<PetRecord>;
  /**
   * Inserts the animal and the key's record in one transaction, unless the key already created
   * one within the window (`decideIdempotentCreate` decides): of concurrent or repeated requests
   * with the same key, on any instance, exactly one creates and the others wait for it and replay.
   */
  insertOnce(pet: NewPetRecord, once: IdempotentCreate, signal?: AbortSignal): Promise<IdempotentOutcome>;
  /**
   * Deletes at most `limit` idempotency records made before `before`, oldest first, without
   * waiting for rows a request is writing; returns how many it deleted.
   */
  deleteExpiredIdempotencyRecords(before: Date, limit: number): Promise<number>;
  findById(id: number): Promise<PetRecord | undefined>;
}

export interface ApiKeyRecord {
  id: number;
  name: string;
  publicId: string;
  secretHash: string;
  createdAt: Date;
  revokedAt: Date | null;
  /** After this the key is refused; null for a key that does not expire. */
  expiresAt: Date | null;
  /** Last authenticated request, to the minute. */
  lastUsedAt: Date | null;
  /** What the key may do, space-separated (keys/scopes.ts). */
  scopes: string;
  /** When a rotation replaced the key; it works until `expiresAt`, the end of the grace. */
  rotatedAt: Date | null;
  /** The key this one replaced, when a rotation made it. */
  rotatedFrom: number | null;
  /** What the key stands for across rotations: the public id of the key that began them (its own, unless a rotation made it). */
  lineage: string;
}

/** Without `scopes`, a key gets every scope. */
export type NewApiKeyRecord = Pick<ApiKeyRecord, 'name' | 'publicId' | 'secretHash' | 'createdAt' | 'expiresAt' | 'lineage'> &
  Partial<Pick<ApiKeyRecord, 'scopes' | 'rotatedFrom'>>;

/** One entry of the audit trail: what happened to which key, never its secret. */
export interface ApiKeyEvent {
  id: number;
  at: Date;
  event: ApiKeyEventName;
  keyId: number;
  keyName: string;
  /** What else there is to say, such as the key a rotation replaced. */
  detail: string | null;
}

export interface ApiKeyRotation {
  /** The key being replaced: it must be neither revoked nor already rotated. */
  id: number;
  at: Date;
  /** The replaced key's new expiry: the end of the grace, or its own expiry if sooner. */
  expiresAt: Date;
  replacement: NewApiKeyRecord;
}

export interface ApiKeyRecords {
  /**
   * Inserts the key; undefined when a live key already has its name, which two instances starting
   * at once on an empty database can both try.
   */
  insert(key: NewApiKeyRecord): Promise<ApiKeyRecord | undefined>;
  findByPublicId(publicId: string): Promise<ApiKeyRecord | undefined>;
  /** All keys, revoked ones included, by ascending id. */
  list(): Promise<ApiKeyRecord[]>;
  /**
   * In one transaction, marks the key rotated with its grace as expiry and inserts its
   * replacement; undefined when the key was revoked or rotated meanwhile.
   */
  rotate(rotation: ApiKeyRotation): Promise<ApiKeyRecord | undefined>;
  /** Marks the key revoked; false when it does not exist or was already revoked. */
  revoke(id: number, at: Date): Promise<boolean>;
  recordUse(id: number, at: Date): Promise<void>;
  /** Records the key's first use; false when it had been used before (by any process). */
  recordFirstUse(id: number, at: Date): Promise<boolean>;
  recordEvent(event: Omit<ApiKeyEvent, 'id'>): Promise<void>;
  /** The audit trail in the order it was written, for one key name or all. */
  events(keyName?: string): Promise<ApiKeyEvent[]>;
}
