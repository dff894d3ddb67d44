CREATE TABLE `imports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	`source` text NOT NULL,
	`file_name` text NOT NULL,
	`links` integer NOT NULL,
	`collections` integer NOT NULL,
	`duplicates` integer NOT NULL,
	`skipped` integer NOT NULL,
	`undone_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "imports_source_check" CHECK("imports"."source" IN ('page', 'cli'))
);
--> statement-breakpoint
CREATE INDEX `imports_user_idx` ON `imports` (`user_id`,`id`);--> statement-breakpoint
ALTER TABLE `collections` ADD `import_id` integer REFERENCES `imports`(`id`) ON DELETE SET NULL;--> statement-breakpoint
CREATE INDEX `collections_import_idx` ON `collections` (`import_id`);--> statement-breakpoint
ALTER TABLE `links` ADD `import_id` integer REFERENCES `imports`(`id`) ON DELETE SET NULL;--> statement-breakpoint
CREATE INDEX `links_import_idx` ON `links` (`import_id`);