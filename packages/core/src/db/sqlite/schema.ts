import { sql } from 'drizzle-orm';
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { ALL_SCOPES_STORED } from '../../keys/scopes.js';
import { API_KEY_EVENTS, PET_STATUSES } from '../../storage/database.js';

const quotedStatuses = sql.raw(PET_STATUSES.map((status) => `'${status}'`).join(', '));

export const pets = sqliteTable(
  'pets',
  {
    // AUTOINCREMENT: ids are never reused, even for the highest id.
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull(),
    categoryId: integer('category_id').notNull(),
    status: text('status', { enum: PET_STATUSES }).notNull(),
  },
  (table) => [
    // Serves the filtered keyset page: WHERE status = ? AND id > ? ORDER BY id.
    index('pets_status_id_idx').on(table.status, table.id),
    check('pets_status_known', sql`${table.status} in (${quotedStatuses})`),
  ],
);

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull(),
    // The non-secret part of a key, used to find its row; the secret is kept only as a hash.
    publicId: text('public_id').notNull().unique(),
    secretHash: text('secret_hash').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    revokedAt: integer('revoked_at', { mode: 'timestamp_ms' }),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }),
    lastUsedAt: integer('last_used_at', { mode: 'timestamp_ms' }),
    // Space-separated; keys from before scopes existed get every scope, as they had.
    scopes: text('scopes').notNull().default(ALL_SCOPES_STORED),
    // Set when the key was replaced by a rotation; it works until its expiry, the grace's end.
    rotatedAt: integer('rotated_at', { mode: 'timestamp_ms' }),
    // The key this one replaced, when a rotation made it.
    rotatedFrom: integer('rotated_from'),
    // What the key stands for across its rotations: the public id of the key that began them.
    lineage: text('lineage').notNull(),
  },
  (table) => [
    // A name identifies one current key; a revoked or rotated key's name goes to its replacement.
    uniqueIndex('api_keys_current_name_idx').on(table.name).where(sql`${table.revokedAt} is null and ${table.rotatedAt} is null`),
  ],
);

/** What happened to API keys, in order: the audit trail `keys log` reads. Never a secret. */
export const apiKeyEvents = sqliteTable('api_key_events', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  at: integer('at', { mode: 'timestamp_ms' }).notNull(),
  event: text('event', { enum: API_KEY_EVENTS }).notNull(),
  keyId: integer('key_id').notNull(),
  keyName: text('key_name').notNull(),
  detail: text('detail'),
});

/**
 * The first response to each `Idempotency-Key`, per API key and its rotations (its lineage): a
 * retry finds the animal it created instead of creating another, sent with the key that replaced
 * the first one too. Rows older than a day no longer count.
 */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    keyLineage: text('key_lineage').notNull(),
    key: text('key').notNull(),
    /** SHA-256 of the validated request, so a different body under the same key is noticed. */
    fingerprint: text('fingerprint').notNull(),
    petId: integer('pet_id')
      .notNull()
      .references(() => pets.id),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.keyLineage, table.key] }),
    // Serves the clean-up of expired rows.
    index('idempotency_keys_created_at_idx').on(table.createdAt),
  ],
);
