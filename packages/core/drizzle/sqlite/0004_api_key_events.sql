CREATE TABLE `api_key_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`event` text NOT NULL,
	`key_id` integer NOT NULL,
	`key_name` text NOT NULL,
	`detail` text
);
