DROP INDEX `api_keys_live_name_idx`;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `rotated_at` integer;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `rotated_from` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_current_name_idx` ON `api_keys` (`name`) WHERE "api_keys"."revoked_at" is null and "api_keys"."rotated_at" is null;