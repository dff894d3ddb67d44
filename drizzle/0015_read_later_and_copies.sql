-- Page copies made by the browser extension: one per link, compressed, counted against the
-- owner's quota by their stored size. No foreign key to the link: a link in the trash keeps it.
CREATE TABLE `link_copies` (
	`link_id` integer PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`bytes` integer NOT NULL,
	`stored_bytes` integer NOT NULL,
	`saved_at` integer NOT NULL,
	`body` blob NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `link_copies_user_idx` ON `link_copies` (`user_id`,`stored_bytes`);--> statement-breakpoint
CREATE INDEX `link_copies_summary_idx` ON `link_copies` (`link_id`,`saved_at`,`bytes`);--> statement-breakpoint
ALTER TABLE `collections` ADD `copies_public` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `links` ADD `to_read` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `links` ADD `archived` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `links_user_to_read_idx` ON `links` (`user_id`,`created_at`,`id`) WHERE "links"."to_read" = 1;--> statement-breakpoint
-- Marking a link read or archived is a change of the link: the change feed carries its flags.
DROP TRIGGER `changes_link_update`;
--> statement-breakpoint
CREATE TRIGGER `changes_link_update` AFTER UPDATE OF `name`, `description`, `url`, `favorite`, `updated_at`, `to_read`, `archived` ON `links` BEGIN
  INSERT OR IGNORE INTO `pending_changes` (`user_id`, `kind`, `item_id`) SELECT NEW.`user_id`, 'link', NEW.`id`;
END;
