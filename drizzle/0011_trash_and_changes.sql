CREATE TABLE `change_floors` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `changes` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`kind` text NOT NULL,
	`item_id` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `changes_item_idx` ON `changes` (`user_id`,`kind`,`item_id`);--> statement-breakpoint
CREATE INDEX `changes_user_seq_idx` ON `changes` (`user_id`,`seq`);--> statement-breakpoint
CREATE TABLE `pending_changes` (
	`user_id` integer NOT NULL,
	`kind` text NOT NULL,
	`item_id` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `pending_changes_item_idx` ON `pending_changes` (`user_id`,`kind`,`item_id`);--> statement-breakpoint
CREATE TABLE `trash` (
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
	CONSTRAINT "trash_kind_check" CHECK("trash"."kind" IN ('link', 'collection'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `trash_item_idx` ON `trash` (`user_id`,`kind`,`item_id`);--> statement-breakpoint
CREATE INDEX `trash_user_deleted_idx` ON `trash` (`user_id`,`deleted_at`,`id`);--> statement-breakpoint
CREATE INDEX `trash_deleted_idx` ON `trash` (`deleted_at`);--> statement-breakpoint
-- The change feed is marked by triggers, in the transaction of every change: a link created,
-- edited or deleted (not its clicks), a collection created, edited, moved or deleted (and the
-- collections whose order that changes), a link added to, placed in or taken out of a collection
-- (the link's collections and the collection's order change); a reorder of a collection's items
-- moves its updated_at, which marks it once rather than once per item. A mark is one row of
-- `pending_changes`, once per item however often it changes; reading the feed moves the reader's
-- marks into `changes`, each item's one row taking the next place in the sequence
-- (src/shelf/changes.ts). An import of 100,000 links marks each item once, not once per row.
CREATE TRIGGER `changes_link_insert` AFTER INSERT ON `links` BEGIN
  INSERT OR IGNORE INTO `pending_changes` (`user_id`, `kind`, `item_id`) SELECT NEW.`user_id`, 'link', NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `changes_link_update` AFTER UPDATE OF `name`, `description`, `url`, `favorite`, `updated_at` ON `links` BEGIN
  INSERT OR IGNORE INTO `pending_changes` (`user_id`, `kind`, `item_id`) SELECT NEW.`user_id`, 'link', NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `changes_link_delete` AFTER DELETE ON `links` BEGIN
  INSERT OR IGNORE INTO `pending_changes` (`user_id`, `kind`, `item_id`) SELECT OLD.`user_id`, 'link', OLD.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `changes_collection_insert` AFTER INSERT ON `collections` BEGIN
  INSERT OR IGNORE INTO `pending_changes` (`user_id`, `kind`, `item_id`) SELECT NEW.`user_id`, 'collection', NEW.`id`;
  INSERT OR IGNORE INTO `pending_changes` (`user_id`, `kind`, `item_id`) SELECT NEW.`user_id`, 'collection', NEW.`parent_id` WHERE NEW.`parent_id` IS NOT NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `changes_collection_update` AFTER UPDATE OF `name`, `description`, `visibility`, `icon`, `parent_id`, `updated_at` ON `collections` BEGIN
  INSERT OR IGNORE INTO `pending_changes` (`user_id`, `kind`, `item_id`) SELECT NEW.`user_id`, 'collection', NEW.`id`;
  INSERT OR IGNORE INTO `pending_changes` (`user_id`, `kind`, `item_id`) SELECT NEW.`user_id`, 'collection', NEW.`parent_id` WHERE NEW.`parent_id` IS NOT NULL AND NEW.`parent_id` IS NOT OLD.`parent_id`;
  INSERT OR IGNORE INTO `pending_changes` (`user_id`, `kind`, `item_id`) SELECT OLD.`user_id`, 'collection', OLD.`parent_id` WHERE OLD.`parent_id` IS NOT NULL AND NEW.`parent_id` IS NOT OLD.`parent_id`;
END;
--> statement-breakpoint
-- A collection's place in its parent is its parent's order: the parent changed, not the collection.
CREATE TRIGGER `changes_collection_place` AFTER UPDATE OF `position` ON `collections`
WHEN NEW.`parent_id` IS NOT NULL AND NEW.`position` <> OLD.`position` BEGIN
  INSERT OR IGNORE INTO `pending_changes` (`user_id`, `kind`, `item_id`) SELECT NEW.`user_id`, 'collection', NEW.`parent_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `changes_collection_delete` AFTER DELETE ON `collections` BEGIN
  INSERT OR IGNORE INTO `pending_changes` (`user_id`, `kind`, `item_id`) SELECT OLD.`user_id`, 'collection', OLD.`id`;
  INSERT OR IGNORE INTO `pending_changes` (`user_id`, `kind`, `item_id`) SELECT OLD.`user_id`, 'collection', OLD.`parent_id` WHERE OLD.`parent_id` IS NOT NULL AND EXISTS (SELECT 1 FROM `collections` WHERE `id` = OLD.`parent_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `changes_membership_insert` AFTER INSERT ON `link_collections` BEGIN
  INSERT OR IGNORE INTO `pending_changes` (`user_id`, `kind`, `item_id`) SELECT (SELECT `user_id` FROM `links` WHERE `id` = NEW.`link_id`), 'link', NEW.`link_id` WHERE (SELECT `user_id` FROM `links` WHERE `id` = NEW.`link_id`) IS NOT NULL;
  INSERT OR IGNORE INTO `pending_changes` (`user_id`, `kind`, `item_id`) SELECT (SELECT `user_id` FROM `collections` WHERE `id` = NEW.`collection_id`), 'collection', NEW.`collection_id` WHERE (SELECT `user_id` FROM `collections` WHERE `id` = NEW.`collection_id`) IS NOT NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `changes_membership_delete` AFTER DELETE ON `link_collections` BEGIN
  INSERT OR IGNORE INTO `pending_changes` (`user_id`, `kind`, `item_id`) SELECT (SELECT `user_id` FROM `links` WHERE `id` = OLD.`link_id`), 'link', OLD.`link_id` WHERE (SELECT `user_id` FROM `links` WHERE `id` = OLD.`link_id`) IS NOT NULL;
  INSERT OR IGNORE INTO `pending_changes` (`user_id`, `kind`, `item_id`) SELECT (SELECT `user_id` FROM `collections` WHERE `id` = OLD.`collection_id`), 'collection', OLD.`collection_id` WHERE (SELECT `user_id` FROM `collections` WHERE `id` = OLD.`collection_id`) IS NOT NULL;
END;
--> statement-breakpoint
-- What is there already is the feed's beginning: every collection, then every link.
INSERT INTO `changes` (`user_id`, `kind`, `item_id`) SELECT `user_id`, 'collection', `id` FROM `collections` ORDER BY `id`;
--> statement-breakpoint
INSERT INTO `changes` (`user_id`, `kind`, `item_id`) SELECT `user_id`, 'link', `id` FROM `links` ORDER BY `id`;
