import { createHash } from 'node:crypto';
import { describe, expect } from 'vitest';
import { ENGINES } from '../testing/engines.js';
import { testOn } from '../testing/fixtures.js';
import type { ApiKeyRecords } from '../storage/database.js';
import { TOKEN_PATTERN } from './api-key-token.js';
import { type ApiKeys, createApiKeys } from './api-keys.js';

describe.each(ENGINES)('API keys on $name', (engine) => {
  const it = testOn(engine).extend('keys', ({ db }) => createApiKeys(db.apiKeys));

  it('authenticates a created key and stores only its hash', async ({ db, keys }) => {
    const { key, token } = await keys.create('ci');
    expect(token).toMatch(/^pst_[0-9a-f]{12}_[0-9A-Za-z]{49}$/);
    expect(token).toMatch(TOKEN_PATTERN);
    expect(await keys.authenticate(token)).toEqual({ keyId: key.id, name: 'ci', lineage: token.slice(4, 16), scopes: ['pets:read', 'pets:write'] });

    const [stored] = await db.apiKeys.list();
    expect(JSON.stringify(stored)).not.toContain(token.slice(17));
    expect(stored?.secretHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a key that differs in any way', async ({ keys }) => {
    const { token } = await keys.create('ci');
    const flipped = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    for (const candidate of [flipped, token.slice(0, -1), `${token}x`, ` ${token}`, token.toUpperCase(), '']) {
      expect(await keys.authenticate(candidate)).toBeNull();
    }
  });

  it('refuses a key whose checksum fails without reading the database', async ({ db }) => {
    // The test's own storage, counting the reads authentication makes.
    let reads = 0;
    const counted: ApiKeyRecords = {
      ...db.apiKeys,
      findByPublicId: (publicId) => {
        reads += 1;
        return db.apiKeys.findByPublicId(publicId);
      },
    };
    const checked = createApiKeys(counted);
    const { token } = await checked.create('ci');
    expect(await checked.authenticate(token)).not.toBeNull();
    expect(reads).toBe(1);

    const secretAt = 'pst_0123456789ab_'.length;
    const mistyped = token.slice(0, secretAt + 5) + (token[secretAt + 5] === 'x' ? 'y' : 'x') + token.slice(secretAt + 6);
    const madeUp = `pst_0123456789ab_${'a'.repeat(43)}ZZZZZZ`;
    const badChecksum = token.slice(0, -1) + (token.endsWith('0') ? '1' : '0');
    for (const candidate of [mistyped, madeUp, badChecksum]) {
      expect(candidate).toMatch(TOKEN_PATTERN);
      expect(await checked.authenticate(candidate)).toBeNull();
    }
    expect(reads).toBe(1);
  });

  describe('a key held in the process (holdMs)', () => {
    const HOLD_MS = 2_000;
    let clock: Date;
    let reads: number;
    let useWrites: number;
    const heldOn = (db: { apiKeys: ApiKeyRecords }, holdMs = HOLD_MS) => {
      clock = new Date('2030-01-01T00:00:00Z');
      reads = 0;
      useWrites = 0;
      const counted: ApiKeyRecords = {
        ...db.apiKeys,
        findByPublicId: (publicId) => {
          reads += 1;
          return db.apiKeys.findByPublicId(publicId);
        },
        recordUse: (keyId, at) => {
          useWrites += 1;
          return db.apiKeys.recordUse(keyId, at);
        },
      };
      return createApiKeys(counted, { now: () => clock, holdMs });
    };
    const later = (ms: number) => {
      clock = new Date(clock.getTime() + ms);
    };

    it('is read once, then again only when its hold ends', async ({ db }) => {
      const keys = heldOn(db);
      const { token } = await keys.create('ci');
      for (let request = 0; request < 5; request++) expect(await keys.authenticate(token)).toMatchObject({ name: 'ci' });
      expect(reads).toBe(1);
      later(HOLD_MS);
      expect(await keys.authenticate(token)).toMatchObject({ name: 'ci' });
      expect(reads).toBe(2);
    });

    it('is refused once revoked elsewhere, when its hold ends; at once when revoked here', async ({ db }) => {
      const keys = heldOn(db);
      const elsewhere = createApiKeys(db.apiKeys);
      const first = await keys.create('first');
      const second = await keys.create('second');
      expect(await keys.authenticate(first.token)).not.toBeNull();
      expect(await keys.authenticate(second.token)).not.toBeNull();
      await elsewhere.revoke('first');
      expect(await keys.authenticate(first.token)).not.toBeNull();
      later(HOLD_MS);
      expect(await keys.authenticate(first.token)).toBeNull();
      await keys.revoke('second');
      expect(await keys.authenticate(second.token)).toBeNull();
    });

    it('reads a held key once per hold and writes its last use once a minute', async ({ db }) => {
      const keys = heldOn(db, 5 * 60_000);
      const { token } = await keys.create('ci');
      const principal = await keys.authenticate(token);
      expect(await keys.authenticate(token)).toEqual(principal);
      expect([reads, useWrites]).toEqual([1, 1]);
      // A minute on, its last use is due: written, and the row is still not read again.
      later(60_000);
      expect(await keys.authenticate(token)).toEqual(principal);
      expect([reads, useWrites]).toEqual([1, 2]);
      later(5 * 60_000);
      expect(await keys.authenticate(token)).toEqual(principal);
      expect(reads).toBe(2);
    });

    it('refuses a held key without a read once it has expired, and at once when revoked here', async ({ db }) => {
      const keys = heldOn(db);
      const brief = await keys.create('brief', { expiresAt: new Date(clock.getTime() + 1_000) });
      const revoked = await keys.create('revoked');
      await keys.authenticate(brief.token);
      await keys.authenticate(revoked.token);
      const readsWhileHeld = reads;
      later(1_000);
      expect(await keys.authenticate(brief.token)).toBeNull();
      expect(reads).toBe(readsWhileHeld);
      await keys.revoke('revoked');
      expect(await keys.authenticate(revoked.token)).toBeNull();
    });

    it('expires exactly, hold or not', async ({ db }) => {
      const keys = heldOn(db);
      const { token } = await keys.create('brief', { expiresAt: new Date(clock.getTime() + 1_000) });
      expect(await keys.authenticate(token)).not.toBeNull();
      later(999);
      expect(await keys.authenticate(token)).not.toBeNull();
      later(1);
      expect(await keys.authenticate(token)).toBeNull();
      expect(reads).toBe(1);
    });
  });

  it('still accepts a key issued before checksums', async ({ db, keys }) => {
    const legacy = 'pst_0123456789ab_' + 'Q'.repeat(40) + '-_x';
    await db.apiKeys.insert({
      name: 'old',
      publicId: '0123456789ab',
      secretHash: createHash('sha256').update(legacy).digest('hex'),
      createdAt: new Date(),
      expiresAt: null,
      lineage: '0123456789ab',
    });
    expect(await keys.authenticate(legacy)).toMatchObject({ name: 'old', scopes: ['pets:read', 'pets:write'] });
    expect(await keys.authenticate(legacy.slice(0, -1) + 'y')).toBeNull();
  });

  describe('rotation', () => {
    let clock: Date;
    let timed: ApiKeys;
    it.beforeEach(({ db }) => {
      clock = new Date('2030-01-01T00:00:00Z');
      timed = createApiKeys(db.apiKeys, { now: () => clock });
    });
    const states = async () => (await timed.list()).map((key) => [key.id, key.name, key.state, key.expiresAt?.toISOString() ?? null]);

    it('gives a new key of the same name and scopes; the old one works until the grace ends', async () => {
      const old = await timed.create('ci', { scopes: ['pets:read'] });
      clock = new Date('2030-01-01T06:00:00Z');
      const rotated = await timed.rotate('ci', { graceMs: 3_600_000 });
      expect(rotated.key).toMatchObject({ id: 2, name: 'ci', scopes: ['pets:read'], state: 'active', rotatedFrom: 1, expiresAt: null });
      expect(rotated.replaced).toMatchObject({ id: 1, state: 'rotating', expiresAt: new Date('2030-01-01T07:00:00Z') });
      expect(await states()).toEqual([
        [1, 'ci', 'rotating', '2030-01-01T07:00:00.000Z'],
        [2, 'ci', 'active', null],
      ]);

      clock = new Date('2030-01-01T06:59:59Z');
      expect(await timed.authenticate(old.token)).toMatchObject({ keyId: 1, scopes: ['pets:read'] });
      expect(await timed.authenticate(rotated.token)).toMatchObject({ keyId: 2, scopes: ['pets:read'] });

      clock = new Date('2030-01-01T07:00:00Z');
      expect(await timed.authenticate(old.token)).toBeNull();
      expect(await timed.authenticate(rotated.token)).not.toBeNull();
      expect(await states()).toEqual([
        [1, 'ci', 'rotated', '2030-01-01T07:00:00.000Z'],
        [2, 'ci', 'active', null],
      ]);
    });

    it('defaults the grace to 24 hours, and keeps an expiring key\'s lifetime', async () => {
      const old = await timed.create('partner', { expiresAt: new Date('2030-01-31T00:00:00Z') });
      clock = new Date('2030-01-10T00:00:00Z');
      const rotated = await timed.rotate(String(old.key.id));
      expect(rotated.replaced.expiresAt).toEqual(new Date('2030-01-11T00:00:00Z'));
      expect(rotated.key.expiresAt).toEqual(new Date('2030-02-09T00:00:00Z'));
      clock = new Date('2030-01-11T00:00:00Z');
      expect(await timed.authenticate(old.token)).toBeNull();
    });

    it('refuses to rotate a revoked, rotated, expired or unknown key', async () => {
      const revoked = await timed.create('gone');
      await timed.revoke('gone');
      await expect(timed.rotate(String(revoked.key.id))).rejects.toThrow(/Key 1 \("gone"\) is revoked/);
      await expect(timed.rotate('gone')).rejects.toThrow(/No current key/);
      expect(await timed.authenticate(revoked.token)).toBeNull();

      await timed.create('ci');
      await timed.rotate('ci');
      await expect(timed.rotate('2')).rejects.toThrow(/already rotated/);
      await timed.create('brief', { expiresAt: new Date('2030-01-01T00:01:00Z') });
      clock = new Date('2030-01-01T00:02:00Z');
      await expect(timed.rotate('brief')).rejects.toThrow(/has expired/);
      expect((await timed.list()).length).toBe(4);
    });

    it('rotates once when two processes rotate at the same moment', async ({ db }) => {
      await timed.create('ci');
      // By id: by name, a rotation that starts after the other finished rightly rotates the new key.
      const attempts = await Promise.allSettled([timed.rotate('1'), createApiKeys(db.apiKeys, { now: () => clock }).rotate('1')]);
      expect(attempts.filter((attempt) => attempt.status === 'fulfilled')).toHaveLength(1);
      expect((await states()).map(([, , state]) => state)).toEqual(['rotating', 'active']);
    });

    it('ends the old key at once with a grace of 0', async () => {
      const old = await timed.create('ci');
      expect(await timed.authenticate(old.token)).not.toBeNull();
      const rotated = await timed.rotate('ci', { graceMs: 0 });
      expect(rotated.replaced).toMatchObject({ state: 'rotated', expiresAt: clock });
      expect(await timed.authenticate(old.token)).toBeNull();
      expect(await timed.authenticate(rotated.token)).not.toBeNull();
    });

    it('revokes by name every key of the name that still works, the one in its grace too', async () => {
      const old = await timed.create('ci');
      const rotated = await timed.rotate('ci', { graceMs: 3_600_000 });
      const other = await timed.create('deploy');
      const revocation = await timed.revoke('ci');
      expect(revocation.revoked.map((key) => key.id)).toEqual([old.key.id, rotated.key.id]);
      expect(revocation.stillWorking).toEqual([]);
      for (const token of [old.token, rotated.token]) expect(await timed.authenticate(token)).toBeNull();
      expect(await timed.authenticate(other.token)).not.toBeNull();
      expect((await states()).map(([, , state]) => state)).toEqual(['revoked', 'revoked', 'active']);
      await expect(timed.revoke('ci')).rejects.toThrow('No key named "ci" still works.');
    });

    it('revokes by id that key alone, and names the keys of its name that still work', async () => {
      const old = await timed.create('ci');
      const rotated = await timed.rotate('ci');
      const revocation = await timed.revoke(String(rotated.key.id));
      expect(revocation.revoked.map((key) => key.id)).toEqual([rotated.key.id]);
      expect(revocation.stillWorking.map((key) => [key.id, key.state])).toEqual([[old.key.id, 'rotating']]);
      expect(await timed.authenticate(old.token)).not.toBeNull();
    });

    it('leaves alone a key of the name that no longer works', async () => {
      await timed.create('ci');
      await timed.rotate('ci', { graceMs: 60_000 });
      clock = new Date(clock.getTime() + 60_000);
      expect((await timed.revoke('ci')).revoked.map((key) => key.id)).toEqual([2]);
      expect((await states()).map(([, , state]) => state)).toEqual(['rotated', 'revoked']);
    });

    it('gives a rotated key the lineage of the key it replaced, and a created key one of its own', async () => {
      const old = await timed.create('ci');
      const rotated = await timed.rotate('ci');
      const again = await timed.rotate('ci');
      const other = await timed.create('other');
      const lineages = await Promise.all([old, rotated, again, other].map(async ({ token }) => (await timed.authenticate(token))?.lineage));
      expect(lineages).toEqual([old.token.slice(4, 16), old.token.slice(4, 16), old.token.slice(4, 16), other.token.slice(4, 16)]);
    });
  });

  it('keeps an audit trail of creations, rotations, revocations and a rotated-in key\'s first use, in order, without secrets', async ({ db }) => {
    let clock = new Date('2030-01-01T00:00:00Z');
    const logged: unknown[] = [];
    const audited = createApiKeys(db.apiKeys, { now: () => clock, audit: (entry) => logged.push(entry) });
    // Another process on the same database, which sees the same first use.
    const elsewhere = createApiKeys(db.apiKeys, { now: () => clock, audit: (entry) => logged.push(entry) });
    const created = await audited.create('ci', { scopes: ['pets:read'] });
    await audited.create('other');
    clock = new Date('2030-01-01T01:00:00Z');
    const rotated = await audited.rotate('ci');
    clock = new Date('2030-01-01T02:00:00Z');
    await audited.authenticate(created.token);
    await Promise.all([audited.authenticate(rotated.token), elsewhere.authenticate(rotated.token)]);
    await audited.authenticate(rotated.token);
    clock = new Date('2030-01-01T03:00:00Z');
    await audited.revoke('ci');

    const trail = (await audited.log('ci')).map(({ at, event, keyId, keyName, detail }) => [at.toISOString(), event, keyId, keyName, detail]);
    expect(trail).toEqual([
      ['2030-01-01T00:00:00.000Z', 'created', 1, 'ci', 'scopes pets:read'],
      ['2030-01-01T01:00:00.000Z', 'rotated', 3, 'ci', 'replaces key 1, which works until 2030-01-02T01:00:00.000Z'],
      ['2030-01-01T02:00:00.000Z', 'first_use', 3, 'ci', 'first use since it replaced key 1'],
      ['2030-01-01T03:00:00.000Z', 'revoked', 1, 'ci', null],
      ['2030-01-01T03:00:00.000Z', 'revoked', 3, 'ci', null],
    ]);
    expect((await audited.log()).map((entry) => entry.event)).toEqual(['created', 'created', 'rotated', 'first_use', 'revoked', 'revoked']);
    expect(logged).toEqual((await audited.log()).map(({ at, event, keyId, keyName, detail }) => ({ at, event, keyId, keyName, detail })));
    const everything = JSON.stringify([await audited.log(), logged]);
    for (const token of [created.token, rotated.token]) expect(everything).not.toContain(token.slice(17));
  });

  it('refuses a revoked key at once, by name or by id', async ({ keys }) => {
    const byName = await keys.create('ci');
    const byId = await keys.create('deploy');
    await keys.revoke('ci');
    await keys.revoke(String(byId.key.id));
    expect(await keys.authenticate(byName.token)).toBeNull();
    expect(await keys.authenticate(byId.token)).toBeNull();
    expect(await keys.anyExist()).toBe(true);
  });

  it('creates one key of a name when several processes try at once', async ({ db, keys }) => {
    const attempts = await Promise.allSettled(Array.from({ length: 5 }, () => createApiKeys(db.apiKeys).create('first')));
    expect(attempts.filter((attempt) => attempt.status === 'fulfilled')).toHaveLength(1);
    expect((await keys.list()).map((key) => key.name)).toEqual(['first']);
  });

  it('lets a revoked name be reused but not a live one', async ({ keys }) => {
    await keys.create('ci');
    await expect(keys.create('ci')).rejects.toThrow(/already exists/);
    await keys.revoke('ci');
    const { token } = await keys.create('ci');
    expect(await keys.authenticate(token)).not.toBeNull();
  });

  it('lists keys without any secret', async ({ keys }) => {
    const { token } = await keys.create('ci');
    const listed = await keys.list();
    expect(listed).toEqual([
      {
        id: 1,
        name: 'ci',
        prefix: token.slice(0, 17),
        createdAt: expect.any(Date),
        revokedAt: null,
        expiresAt: null,
        lastUsedAt: null,
        scopes: ['pets:read', 'pets:write'],
        state: 'active',
        rotatedFrom: null,
      },
    ]);
  });

  it('gives a key the scopes it is created with, every scope when none is named', async ({ keys }) => {
    const reader = await keys.create('reader', { scopes: ['pets:read'] });
    const writer = await keys.create('writer', { scopes: ['pets:write', 'pets:write'] });
    const both = await keys.create('both', { scopes: ['pets:write', 'pets:read'] });
    expect((await keys.authenticate(reader.token))?.scopes).toEqual(['pets:read']);
    expect((await keys.authenticate(writer.token))?.scopes).toEqual(['pets:write']);
    expect((await keys.authenticate(both.token))?.scopes).toEqual(['pets:read', 'pets:write']);
    expect((await keys.list()).map((key) => key.scopes)).toEqual([['pets:read'], ['pets:write'], ['pets:read', 'pets:write']]);
  });

  it('refuses a key from the moment it expires', async ({ db }) => {
    let clock = new Date('2030-01-01T00:00:00Z');
    const timed = createApiKeys(db.apiKeys, { now: () => clock });
    const { token } = await timed.create('short', { expiresAt: new Date('2030-01-01T01:00:00Z') });
    clock = new Date('2030-01-01T00:59:59Z');
    expect(await timed.authenticate(token)).not.toBeNull();
    clock = new Date('2030-01-01T01:00:00Z');
    expect(await timed.authenticate(token)).toBeNull();
    await expect(timed.create('late', { expiresAt: clock })).rejects.toThrow(/in the future/);
  });

  it('records the last use, at most once a minute', async ({ db }) => {
    let clock = new Date('2030-01-01T00:00:00Z');
    const timed = createApiKeys(db.apiKeys, { now: () => clock });
    const { token } = await timed.create('used');
    const lastUse = async () => (await timed.list())[0]?.lastUsedAt?.toISOString();
    expect(await lastUse()).toBeUndefined();
    await timed.authenticate(token);
    expect(await lastUse()).toBe('2030-01-01T00:00:00.000Z');
    clock = new Date('2030-01-01T00:00:30Z');
    await timed.authenticate(token);
    expect(await lastUse()).toBe('2030-01-01T00:00:00.000Z');
    clock = new Date('2030-01-01T00:01:00Z');
    await timed.authenticate(token);
    expect(await lastUse()).toBe('2030-01-01T00:01:00.000Z');
  });

  it.for(['', '123', 'has space', 'a'.repeat(65), 'naïve', '--scope', '-h', '.hidden'])('refuses the name %j', async (name, { keys }) => {
    await expect(keys.create(name)).rejects.toThrow(/Key name/);
  });

  it('reports an unknown or already revoked key on revoke', async ({ keys }) => {
    await expect(keys.revoke('nobody')).rejects.toThrow('No key named "nobody" still works.');
    await expect(keys.revoke('99')).rejects.toThrow('No key has the id 99.');
    const { key } = await keys.create('ci');
    await keys.revoke('ci');
    await expect(keys.revoke(String(key.id))).rejects.toThrow(/already revoked/);
  });
});
