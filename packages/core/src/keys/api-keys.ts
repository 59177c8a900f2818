import { z } from 'zod';
import { isStorageUnavailable } from '../db/storage-unavailable.js';
import type { ApiKeyRecord, ApiKeyRecords } from '../db/database.js';
import { issueToken, publicIdOf, tokenMatchesHash } from './api-key-token.js';
import { type ApiKeyScope, canonicalScopes, scopesFromStored } from './scopes.js';

/** Names are what `keys revoke` accepts beside ids, so a name may not look like an id. */
export const ApiKeyName = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1 to 64 letters, digits, ".", "_" or "-"')
  .refine((name) => !/^[0-9]+$/.test(name), 'must not be only digits (it would read as an id)');

/** Who made a request: the key that authenticated it. */
export interface ApiKeyPrincipal {
  keyId: number;
  name: string;
  /** What the key may do; each procedure needs one of them. */
  scopes: readonly ApiKeyScope[];
}

/** What `keys list` shows: never the secret or its hash. */
export interface ApiKeySummary {
  id: number;
  name: string;
  prefix: string;
  createdAt: Date;
  revokedAt: Date | null;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  scopes: ApiKeyScope[];
}

/** Last use is written at most this often per key and process: a write per request would cost more than it tells. */
const LAST_USE_RESOLUTION_MS = 60_000;

export class ApiKeyError extends Error {
  override name = 'ApiKeyError';
}

const nameTaken = (name: string) =>
  new ApiKeyError(`A live key named "${name}" already exists; revoke it or pick another name.`);

const summarise = (key: ApiKeyRecord): ApiKeySummary => ({
  id: key.id,
  name: key.name,
  prefix: `pst_${key.publicId}_`,
  createdAt: key.createdAt,
  revokedAt: key.revokedAt,
  expiresAt: key.expiresAt,
  lastUsedAt: key.lastUsedAt,
  scopes: scopesFromStored(key.scopes),
});

export interface ApiKeysOptions {
  /** The clock; tests of expiry move it. */
  now?: () => Date;
}

export const createApiKeys = (records: ApiKeyRecords, { now = () => new Date() }: ApiKeysOptions = {}) => {
  const live = async () => (await records.list()).filter((key) => key.revokedAt === null);
  const lastUseWritten = new Map<number, number>();

  return {
    /** Creates a key and returns its token: the only moment the token exists outside a hash. */
    async create(
      name: string,
      { expiresAt = null, scopes }: { expiresAt?: Date | null; scopes?: readonly ApiKeyScope[] } = {},
    ): Promise<{ key: ApiKeySummary; token: string }> {
      const parsed = ApiKeyName.safeParse(name);
      if (!parsed.success) throw new ApiKeyError(`Key name ${parsed.error.issues[0]?.message}.`);
      if ((await live()).some((key) => key.name === name)) {
        throw nameTaken(name);
      }
      const createdAt = now();
      if (expiresAt && expiresAt <= createdAt) throw new ApiKeyError('A key must expire in the future.');
      const { token, publicId, secretHash } = issueToken();
      const key = await records.insert({ name, publicId, secretHash, createdAt, expiresAt, scopes: canonicalScopes(scopes).join(' ') });
      // Another process created a key of that name between the check above and the insert.
      if (!key) throw nameTaken(name);
      return { key: summarise(key), token };
    },

    async list(): Promise<ApiKeySummary[]> {
      return (await records.list()).map(summarise);
    },

    /** True once any key was ever created, revoked ones included. */
    async anyExist(): Promise<boolean> {
      return (await records.list()).length > 0;
    },

    /** Revokes the live key with this name, or the key with this id. */
    async revoke(nameOrId: string): Promise<ApiKeySummary> {
      const keys = await records.list();
      const key = /^[0-9]+$/.test(nameOrId)
        ? keys.find((candidate) => candidate.id === Number(nameOrId))
        : keys.find((candidate) => candidate.name === nameOrId && candidate.revokedAt === null);
      if (!key) throw new ApiKeyError(`No live key has the name or id "${nameOrId}".`);
      const revokedAt = now();
      if (!(await records.revoke(key.id, revokedAt))) {
        throw new ApiKeyError(`Key ${key.id} ("${key.name}") is already revoked.`);
      }
      return summarise({ ...key, revokedAt });
    },

    /**
     * The principal behind a presented key, or null when it is unknown, malformed, revoked or
     * expired. The stored key is read on every call, so a revocation or an expiry takes effect at
     * once, in every process using the database.
     */
    async authenticate(token: string): Promise<ApiKeyPrincipal | null> {
      const publicId = publicIdOf(token);
      if (publicId === undefined) return null;
      const key = await records.findByPublicId(publicId);
      if (!key || key.revokedAt !== null || !tokenMatchesHash(token, key.secretHash)) return null;
      const at = now();
      if (key.expiresAt !== null && key.expiresAt <= at) return null;
      if (at.getTime() - (lastUseWritten.get(key.id) ?? 0) >= LAST_USE_RESOLUTION_MS) {
        lastUseWritten.set(key.id, at.getTime());
        try {
          await records.recordUse(key.id, at);
        } catch (error) {
          // Last use is a note, not the request: a database that cannot be written (read-only,
          // full) still serves reads. It is written again on the next request.
          if (!isStorageUnavailable(error)) throw error;
          lastUseWritten.delete(key.id);
        }
      }
      return { keyId: key.id, name: key.name, scopes: scopesFromStored(key.scopes) };
    },
  };
};
export type ApiKeys = ReturnType<typeof createApiKeys>;
