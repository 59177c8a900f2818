import { sql } from 'drizzle-orm';
import { bigint, check, index, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { ALL_SCOPES_STORED } from '../../keys/scopes.js';
import { API_KEY_EVENTS, PET_STATUSES } from '../../storage/database.js';

// The same tables as ../sqlite/schema.ts, in PostgreSQL's types. Ids are bigint identities read
// as JavaScript numbers: the service never hands out more than 2^53 - 1 of them.
const quotedStatuses = sql.raw(PET_STATUSES.map((status) => `'${status}'`).join(', '));
const id = (name: string) => bigint(name, { mode: 'number' });
const instant = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const pets = pgTable(
  'pets',
  {
    // An identity is never reused; inserts are serialised (see pet-records.ts) so ids also
    // become visible in the order they were given.
    id: id('id').primaryKey().generatedAlwaysAsIdentity(),
    name: text('name').notNull(),
    categoryId: id('category_id').notNull(),
    status: text('status', { enum: PET_STATUSES }).notNull(),
  },
  (table) => [
    index('pets_status_id_idx').on(table.status, table.id),
    check('pets_status_known', sql`${table.status} in (${quotedStatuses})`),
  ],
);

export const apiKeys = pgTable(
  'api_keys',
  {
    id: id('id').primaryKey().generatedAlwaysAsIdentity(),
    name: text('name').notNull(),
    publicId: text('public_id').notNull().unique(),
    secretHash: text('secret_hash').notNull(),
    createdAt: instant('created_at').notNull(),
    revokedAt: instant('revoked_at'),
    expiresAt: instant('expires_at'),
    lastUsedAt: instant('last_used_at'),
    scopes: text('scopes').notNull().default(ALL_SCOPES_STORED),
    rotatedAt: instant('rotated_at'),
    rotatedFrom: id('rotated_from'),
    lineage: text('lineage').notNull(),
  },
  (table) => [
    uniqueIndex('api_keys_current_name_idx').on(table.name).where(sql`${table.revokedAt} is null and ${table.rotatedAt} is null`),
  ],
);

export const apiKeyEvents = pgTable('api_key_events', {
  id: id('id').primaryKey().generatedAlwaysAsIdentity(),
  at: instant('at').notNull(),
  event: text('event', { enum: API_KEY_EVENTS }).notNull(),
  keyId: id('key_id').notNull(),
  keyName: text('key_name').notNull(),
  detail: text('detail'),
});

export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    keyLineage: text('key_lineage').notNull(),
    key: text('key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    petId: id('pet_id')
      .notNull()
      .references(() => pets.id),
    createdAt: instant('created_at').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.keyLineage, table.key] }),
    index('idempotency_keys_created_at_idx').on(table.createdAt),
  ],
);
