-- The database's history: a random generation, given anew to every copy linkshelf writes (a
-- backup, a restore). Change cursors name it, so a cursor of another history is refused.
CREATE TABLE `history` (
	`id` integer PRIMARY KEY NOT NULL,
	`generation` text NOT NULL,
	CONSTRAINT "history_one_row" CHECK("history"."id" = 1)
);
--> statement-breakpoint
INSERT INTO `history` (`id`, `generation`) VALUES (1, lower(hex(randomblob(16))));
--> statement-breakpoint
-- Each user's changes take places in their own sequence (1, 2, 3, ...), no longer in one shared by
-- all users: the rows keep their order, numbered again per user. Cursors written before this are
-- refused (the feed cannot tell what they meant), so nothing needs their old numbers.
CREATE TABLE `__new_changes` (
	`user_id` integer NOT NULL,
	`seq` integer NOT NULL,
	`kind` text NOT NULL,
	`item_id` integer NOT NULL,
	PRIMARY KEY(`user_id`, `seq`)
);
--> statement-breakpoint
INSERT INTO `__new_changes` (`user_id`, `seq`, `kind`, `item_id`)
SELECT `user_id`, row_number() OVER (PARTITION BY `user_id` ORDER BY `seq`), `kind`, `item_id` FROM `changes`;
--> statement-breakpoint
-- The last place handed out to each user (`head`); a floor becomes the place of the newest row
-- below it (what the feed no longer remembers stays behind it).
ALTER TABLE `change_floors` ADD `head` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
UPDATE `change_floors` SET `seq` = (SELECT count(*) FROM `changes` AS c WHERE c.`user_id` = `change_floors`.`user_id` AND c.`seq` <= `change_floors`.`seq`);
--> statement-breakpoint
INSERT INTO `change_floors` (`user_id`, `seq`, `head`)
SELECT `user_id`, 0, count(*) FROM `__new_changes` WHERE `user_id` IN (SELECT `id` FROM `users`) GROUP BY `user_id` ORDER BY `user_id`
ON CONFLICT (`user_id`) DO UPDATE SET `head` = excluded.`head`;
--> statement-breakpoint
DROP TABLE `changes`;
--> statement-breakpoint
ALTER TABLE `__new_changes` RENAME TO `changes`;
--> statement-breakpoint
CREATE UNIQUE INDEX `changes_item_idx` ON `changes` (`user_id`,`kind`,`item_id`);
