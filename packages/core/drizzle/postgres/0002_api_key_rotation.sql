DROP INDEX "api_keys_live_name_idx";--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "rotated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "rotated_from" bigint;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_current_name_idx" ON "api_keys" USING btree ("name") WHERE "api_keys"."revoked_at" is null and "api_keys"."rotated_at" is null;