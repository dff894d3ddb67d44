-- An undone import is one item of the trash (kind 'import'): its links and the collections it
-- leaves empty, restored or purged together. The table is made again for its CHECK.
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_trash` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`kind` text NOT NULL,
	`item_id` integer NOT NULL,
	`name` text NOT NULL,
	`deleted_at` integer NOT NULL,
	`links` integer NOT NULL,
	`collections` integer NOT NULL,
	`data` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "trash_kind_check" CHECK("__new_trash"."kind" IN ('link', 'collection', 'import'))
);
--> statement-breakpoint
INSERT INTO `__new_trash`("id", "user_id", "kind", "item_id", "name", "deleted_at", "links", "collections", "data") SELECT "id", "user_id", "kind", "item_id", "name", "deleted_at", "links", "collections", "data" FROM `trash`;--> statement-breakpoint
DROP TABLE `trash`;--> statement-breakpoint
ALTER TABLE `__new_trash` RENAME TO `trash`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `trash_item_idx` ON `trash` (`user_id`,`kind`,`item_id`);--> statement-breakpoint
CREATE INDEX `trash_user_deleted_idx` ON `trash` (`user_id`,`deleted_at`,`id`);--> statement-breakpoint
CREATE INDEX `trash_deleted_idx` ON `trash` (`deleted_at`);