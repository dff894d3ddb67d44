CREATE TABLE `extension_grants` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`browser` text NOT NULL,
	`extension_id` text NOT NULL,
	`approved_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "extension_grants_browser_check" CHECK("extension_grants"."browser" IN ('chromium', 'firefox'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `extension_grants_user_extension_unique` ON `extension_grants` (`user_id`,`browser`,`extension_id`);--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `grant_id` integer REFERENCES extension_grants(id) ON DELETE cascade;--> statement-breakpoint
CREATE INDEX `api_tokens_grant_idx` ON `api_tokens` (`grant_id`);