import type { NewPet, Pet, PetStatus } from '../schemas/pet.js';

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
}

export interface PetPageQuery {
  /** Only animals with a greater id; 0 for the first page. */
  afterId: number;
  status?: PetStatus | undefined;
  /** At most this many animals, by ascending id. */
  take: number;
}

export interface PetRecords {
  page(query: PetPageQuery): Promise<Pet[]>;
  insert(pet: NewPet): Promise<Pet>;
  findById(id: number): Promise<Pet | undefined>;
}

export interface ApiKeyRecord {
  id: number;
  name: string;
  publicId: string;
  secretHash: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export type NewApiKeyRecord = Pick<ApiKeyRecord, 'name' | 'publicId' | 'secretHash' | 'createdAt'>;

export interface ApiKeyRecords {
  insert(key: NewApiKeyRecord): Promise<ApiKeyRecord>;
  findByPublicId(publicId: string): Promise<ApiKeyRecord | undefined>;
  /** All keys, revoked ones included, by ascending id. */
  list(): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; false when it does not exist or was already revoked. */
  revoke(id: number, at: Date): Promise<boolean>;
}
