import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { PET_STATUSES } from '../../schemas/pet.js';

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
  },
  (table) => [
    // A name identifies one live key; a revoked key's name can be given to its replacement.
    uniqueIndex('api_keys_live_name_idx').on(table.name).where(sql`${table.revokedAt} is null`),
  ],
);
