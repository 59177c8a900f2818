CREATE TABLE `api_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`public_id` text NOT NULL,
	`secret_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_public_id_unique` ON `api_keys` (`public_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_live_name_idx` ON `api_keys` (`name`) WHERE "api_keys"."revoked_at" is null;--> statement-breakpoint
CREATE TABLE `pets` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`category_id` integer NOT NULL,
	`status` text NOT NULL,
	CONSTRAINT "pets_status_known" CHECK("pets"."status" in ('available', 'pending', 'sold'))
);
--> statement-breakpoint
CREATE INDEX `pets_status_id_idx` ON `pets` (`status`,`id`);