import { z } from 'zod';
import { isStorageUnavailable } from '../storage/storage-unavailable.js';
import type { ApiKeyEvent, ApiKeyRecord, ApiKeyRecords } from '../storage/database.js';
import { issueToken, publicIdOf, tokenMatchesHash } from './api-key-token.js';
import { type ApiKeyScope, canonicalScopes, scopesFromStored } from './scopes.js';

/**
 * Names are what `keys revoke` and `keys rotate` accept beside ids, on a command line: a name may
 * look neither like an id nor like an option (a leading "-" or "."), or it could only be reached by id.
 */
export const ApiKeyName = z
  .string()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1 to 64 letters, digits, ".", "_" or "-"')
  .regex(/^[A-Za-z0-9]/, 'must start with a letter or a digit (it would read as an option)')
  .refine((name) => !/^[0-9]+$/.test(name), 'must not be only digits (it would read as an id)');

/** Who made a request: the key that authenticated it. */
export interface ApiKeyPrincipal {
  keyId: number;
  name: string;
  /** What the key stands for across its rotations: idempotency records belong to it, not to one key. */
  lineage: string;
  /** What the key may do; each procedure needs one of them. */
  scopes: readonly ApiKeyScope[];
}

/**
 * Where a key stands: `active`; `rotating` (replaced by a rotation, working until its grace ends);
 * `rotated` (its grace is over); `expired`; `revoked`.
 */
export type ApiKeyState = 'active' | 'rotating' | 'rotated' | 'expired' | 'revoked';

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
  state: ApiKeyState;
  /** The key this one replaced, when a rotation made it. */
  rotatedFrom: number | null;
}

/** How long a replaced key keeps working after `rotate`, unless told otherwise. */
export const DEFAULT_ROTATION_GRACE_MS = 24 * 3_600_000;

/** Last use is written at most this often per key and process. */
const LAST_USE_RESOLUTION_MS = 60_000;

export class ApiKeyError extends Error {
  override name = 'ApiKeyError';
}

const nameTaken = (name: string) =>
  new ApiKeyError(`A live key named "${name}" already exists; revoke it or pick another name.`);

const stateOf = (key: ApiKeyRecord, at: Date): ApiKeyState => {
  if (key.revokedAt !== null) return 'revoked';
  const over = key.expiresAt !== null && key.expiresAt <= at;
  if (key.rotatedAt !== null) return over ? 'rotated' : 'rotating';
  return over ? 'expired' : 'active';
};

const summarise = (key: ApiKeyRecord, at: Date): ApiKeySummary => ({
  id: key.id,
  name: key.name,
  prefix: `pst_${key.publicId}_`,
  createdAt: key.createdAt,
  revokedAt: key.revokedAt,
  expiresAt: key.expiresAt,
  lastUsedAt: key.lastUsedAt,
  scopes: scopesFromStored(key.scopes),
  state: stateOf(key, at),
  rotatedFrom: key.rotatedFrom,
});

const isId = (nameOrId: string) => /^[0-9]+$/.test(nameOrId);

/**
 * The key `keys rotate` names: by id any key, by name the current one (neither revoked nor
 * replaced by a rotation).
 */
const findKey = (keys: ApiKeyRecord[], nameOrId: string): ApiKeyRecord | undefined =>
  isId(nameOrId)
    ? keys.find((candidate) => candidate.id === Number(nameOrId))
    : keys.find((candidate) => candidate.name === nameOrId && candidate.revokedAt === null && candidate.rotatedAt === null);

/** A key a request may still use: not revoked, not past its expiry (a replaced key in its grace included). */
const works = (key: ApiKeyRecord, at: Date) => key.revokedAt === null && (key.expiresAt === null || key.expiresAt > at);

/** How often `revoke` by name looks again for keys of the name that a rotation made meanwhile. */
const REVOKE_ROUNDS = 5;

/** What `revoke` did: the keys it revoked, and the keys of the same name that still work. */
export interface Revocation {
  revoked: ApiKeySummary[];
  stillWorking: ApiKeySummary[];
}

export interface ApiKeysOptions {
  /** The clock; tests of expiry move it. */
  now?: () => Date;
  /** Writes each audit entry as a structured log line (the CLI's and the server's loggers). */
  audit?: (entry: Omit<ApiKeyEvent, 'id'>) => void;
  /**
   * How long an authenticated key is held in this process before its row is read again: the
   * longest a revocation or a change made elsewhere (another instance, the CLI) takes to be seen
   * here. 0 reads the row on every request.
   */
  holdMs?: number;
}

/** What `authenticate` answers for a key it was told not to look up. */
export const NOT_LOOKED_UP = 'not looked up';

/** The most keys held at once; past it the longest-held goes first. */
export const MAX_HELD_KEYS = 10_000;

/** A key this process authenticated, until `until`: what a request needs without a database read. */
interface HeldKey {
  principal: ApiKeyPrincipal;
  /** Its expiry, checked on every request, so an expiry is exact whatever the hold. */
  expiresAt: number | null;
  until: number;
}

export const createApiKeys = (records: ApiKeyRecords, { now = () => new Date(), audit, holdMs = 0 }: ApiKeysOptions = {}) => {
  /** Kept in the database and logged: key id and name, never the secret. */
  const record = async (entry: Omit<ApiKeyEvent, 'id'>) => {
    await records.recordEvent(entry);
    audit?.(entry);
  };

  /** The keys that hold their name: neither revoked nor replaced by a rotation. */
  const current = async () => (await records.list()).filter((key) => key.revokedAt === null && key.rotatedAt === null);
  const lastUseWritten = new Map<number, number>();
  const held = new Map<string, HeldKey>();

  const hold = (token: string, principal: ApiKeyPrincipal, expiresAt: Date | null, at: Date) => {
    if (holdMs === 0) return;
    held.delete(token);
    if (held.size >= MAX_HELD_KEYS) held.delete(held.keys().next().value as string);
    held.set(token, { principal, expiresAt: expiresAt?.getTime() ?? null, until: at.getTime() + holdMs });
  };
  /** What this process changed takes effect here at once; other processes see it within `holdMs`. */
  const release = (keyId: number) => {
    for (const [token, { principal }] of held) if (principal.keyId === keyId) held.delete(token);
  };

  const useIsNoted = (keyId: number, at: number) => at - (lastUseWritten.get(keyId) ?? 0) < LAST_USE_RESOLUTION_MS;

  /** The key held for `token` while its hold lasts: its principal, null once it has expired; undefined when not held. */
  const heldAt = (token: string, at: number): ApiKeyPrincipal | null | undefined => {
    const kept = held.get(token);
    if (!kept || at >= kept.until) return undefined;
    return kept.expiresAt !== null && kept.expiresAt <= at ? null : kept.principal;
  };

  /** Last use, to the minute: a write per request would cost more than it tells. */
  const noteUse = async (keyId: number, at: Date) => {
    if (useIsNoted(keyId, at.getTime())) return;
    lastUseWritten.set(keyId, at.getTime());
    try {
      await records.recordUse(keyId, at);
    } catch (error) {
      // Last use is a note, not the request: a database that cannot be written (read-only,
      // full) still serves reads. It is written again on the next request.
      if (!isStorageUnavailable(error)) throw error;
      lastUseWritten.delete(keyId);
    }
  };

  /**
   * The principal behind a presented key, or null when it is unknown, malformed, revoked or
   * expired. A key's row is read when the process first sees it and again once it has been held
   * `holdMs`; an expiry is checked on every request. A key that is not well formed, or whose
   * checksum fails, is refused without a read. Before reading the row of a key this process does
   * not know good (one of its last MAX_HELD_KEYS, its hold over or not), it asks `mayLookUp`:
   * `NOT_LOOKED_UP` when that says no.
   */
  function authenticate(token: string): Promise<ApiKeyPrincipal | null>;
  function authenticate(token: string, mayLookUp: (() => boolean) | undefined): Promise<ApiKeyPrincipal | null | typeof NOT_LOOKED_UP>;
  async function authenticate(token: string, mayLookUp?: () => boolean): Promise<ApiKeyPrincipal | null | typeof NOT_LOOKED_UP> {
    const at = now();
    const kept = heldAt(token, at.getTime());
    if (kept !== undefined) {
      // The common request: a held key whose last use is noted waits for nothing.
      if (kept && !useIsNoted(kept.keyId, at.getTime())) await noteUse(kept.keyId, at);
      return kept;
    }
    const known = held.delete(token);
    const publicId = publicIdOf(token);
    if (publicId === undefined) return null;
    if (!known && mayLookUp?.() === false) return NOT_LOOKED_UP;
    const key = await records.findByPublicId(publicId);
    if (!key || key.revokedAt !== null || !tokenMatchesHash(token, key.secretHash)) return null;
    if (key.expiresAt !== null && key.expiresAt <= at) return null;
    // A rotated-in key's first use says the app now holds it: one process wins the write and records it.
    if (key.rotatedFrom !== null && key.lastUsedAt === null && !lastUseWritten.has(key.id)) {
      lastUseWritten.set(key.id, at.getTime());
      if (await records.recordFirstUse(key.id, at)) {
        await record({ at, event: 'first_use', keyId: key.id, keyName: key.name, detail: `first use since it replaced key ${key.rotatedFrom}` });
      }
    } else {
      await noteUse(key.id, at);
    }
    const principal = { keyId: key.id, name: key.name, lineage: key.lineage, scopes: scopesFromStored(key.scopes) };
    hold(token, principal, key.expiresAt, at);
    return principal;
  }

  return {
    /** Creates a key and returns its token: the only moment the token exists outside a hash. */
    async create(
      name: string,
      { expiresAt = null, scopes }: { expiresAt?: Date | null; scopes?: readonly ApiKeyScope[] } = {},
    ): Promise<{ key: ApiKeySummary; token: string }> {
      const parsed = ApiKeyName.safeParse(name);
      if (!parsed.success) throw new ApiKeyError(`Key name ${parsed.error.issues[0]?.message}.`);
      if ((await current()).some((key) => key.name === name)) {
        throw nameTaken(name);
      }
      const createdAt = now();
      if (expiresAt && expiresAt <= createdAt) throw new ApiKeyError('A key must expire in the future.');
      const { token, publicId, secretHash } = issueToken();
      // A key no rotation made begins a lineage of its own, named by its public id.
      const key = await records.insert({ name, publicId, secretHash, createdAt, expiresAt, scopes: canonicalScopes(scopes).join(' '), lineage: publicId });
      // Another process created a key of that name between the check above and the insert.
      if (!key) throw nameTaken(name);
      await record({ at: createdAt, event: 'created', keyId: key.id, keyName: key.name, detail: `scopes ${key.scopes}` });
      return { key: summarise(key, createdAt), token };
    },

    /**
     * Replaces the current key with this name, or the key with this id, by a new one with the same
     * name, scopes and lineage (and, when the old one expires, as long a lifetime). The old key keeps
     * working for `graceMs`, then is refused (at once when it is 0). Returns both and the new token.
     */
    async rotate(
      nameOrId: string,
      { graceMs = DEFAULT_ROTATION_GRACE_MS }: { graceMs?: number } = {},
    ): Promise<{ key: ApiKeySummary; replaced: ApiKeySummary; token: string }> {
      const old = findKey(await records.list(), nameOrId);
      if (!old) throw new ApiKeyError(`No current key has the name or id "${nameOrId}".`);
      const at = now();
      const described = `Key ${old.id} ("${old.name}")`;
      if (old.revokedAt !== null) throw new ApiKeyError(`${described} is revoked; a revoked key cannot be rotated.`);
      if (old.rotatedAt !== null) throw new ApiKeyError(`${described} was already rotated; rotate its replacement.`);
      if (old.expiresAt !== null && old.expiresAt <= at) throw new ApiKeyError(`${described} has expired; create a new key instead.`);
      const graceEnds = new Date(at.getTime() + graceMs);
      const expiresAt = old.expiresAt !== null && old.expiresAt < graceEnds ? old.expiresAt : graceEnds;
      const { token, publicId, secretHash } = issueToken();
      const lifetime = old.expiresAt === null ? null : old.expiresAt.getTime() - old.createdAt.getTime();
      const key = await records.rotate({
        id: old.id,
        at,
        expiresAt,
        replacement: {
          name: old.name,
          publicId,
          secretHash,
          createdAt: at,
          expiresAt: lifetime === null ? null : new Date(at.getTime() + lifetime),
          scopes: old.scopes,
          rotatedFrom: old.id,
          lineage: old.lineage,
        },
      });
      if (!key) throw new ApiKeyError(`${described} was revoked or rotated meanwhile.`);
      release(old.id);
      await record({ at, event: 'rotated', keyId: key.id, keyName: key.name, detail: `replaces key ${old.id}, which works until ${expiresAt.toISOString()}` });
      return { key: summarise(key, at), replaced: summarise({ ...old, rotatedAt: at, expiresAt }, at), token };
    },

    /** The audit trail, oldest first, for one key name or every key. */
    log(name?: string): Promise<ApiKeyEvent[]> {
      return records.events(name);
    },

    async list(): Promise<ApiKeySummary[]> {
      const at = now();
      return (await records.list()).map((key) => summarise(key, at));
    },

    /** True once any key was ever created, revoked ones included. */
    async anyExist(): Promise<boolean> {
      return (await records.list()).length > 0;
    },

    /**
     * By name, revokes every key of the name that still works: the current one and any a rotation
     * replaced whose grace has not ended, which is what a leaked key's name needs; a rotation that
     * runs meanwhile is looked for again. By id, revokes that key alone, and says which keys of its
     * name still work.
     */
    async revoke(nameOrId: string): Promise<Revocation> {
      const revoked: ApiKeySummary[] = [];
      /** Revokes `key` unless another process did first; true when this call did. */
      const revokeOne = async (key: ApiKeyRecord, revokedAt: Date) => {
        if (!(await records.revoke(key.id, revokedAt))) return false;
        release(key.id);
        await record({ at: revokedAt, event: 'revoked', keyId: key.id, keyName: key.name, detail: null });
        revoked.push(summarise({ ...key, revokedAt }, revokedAt));
        return true;
      };
      const stillWorking = async (name: string) => {
        const at = now();
        return (await records.list()).filter((key) => key.name === name && works(key, at));
      };

      if (isId(nameOrId)) {
        const key = (await records.list()).find((candidate) => candidate.id === Number(nameOrId));
        if (!key) throw new ApiKeyError(`No key has the id ${nameOrId}.`);
        if (!(await revokeOne(key, now()))) throw new ApiKeyError(`Key ${key.id} ("${key.name}") is already revoked.`);
        return { revoked, stillWorking: (await stillWorking(key.name)).map((other) => summarise(other, now())) };
      }
      let live = await stillWorking(nameOrId);
      if (live.length === 0) throw new ApiKeyError(`No key named "${nameOrId}" still works.`);
      for (let round = 0; round < REVOKE_ROUNDS && live.length > 0; round++) {
        const revokedAt = now();
        for (const key of live) await revokeOne(key, revokedAt);
        live = await stillWorking(nameOrId);
      }
      return { revoked, stillWorking: live.map((key) => summarise(key, now())) };
    },

    authenticate,
  };
};
export type ApiKeys = ReturnType<typeof createApiKeys>;
