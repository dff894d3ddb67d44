ALTER TABLE `collections` ADD `parent_id` integer REFERENCES collections(id);--> statement-breakpoint
ALTER TABLE `collections` ADD `position` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `collections_parent_idx` ON `collections` (`user_id`,`parent_id`,`position`);--> statement-breakpoint
ALTER TABLE `link_collections` ADD `position` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `link_collections_position_idx` ON `link_collections` (`collection_id`,`position`);--> statement-breakpoint
-- Collections that earlier imports named after nested folders (`Bikes / Home / Tools`) become
-- nested (`Tools` inside `Bikes / Home`, itself `Home` inside `Bikes`) when every part of the path
-- is exactly one collection of its owner with that name (`Bikes`, `Bikes / Home`); otherwise they
-- stay as they are. The Inbox holds no sub-collections and is never renamed.
CREATE TABLE `collection_nesting` (`id` integer PRIMARY KEY, `parent_id` integer NOT NULL, `name` text NOT NULL);
--> statement-breakpoint
INSERT INTO `collection_nesting` (`id`, `parent_id`, `name`)
WITH RECURSIVE `cut` (`id`, `user_id`, `name`, `at`) AS (
  SELECT `id`, `user_id`, `name`, instr(`name`, ' / ') FROM `collections` WHERE `is_default` = 0 AND instr(`name`, ' / ') > 0
  UNION ALL
  SELECT `id`, `user_id`, `name`, `at` + 2 + instr(substr(`name`, `at` + 3), ' / ') FROM `cut` WHERE instr(substr(`name`, `at` + 3), ' / ') > 0
),
`parts` AS (
  SELECT `cut`.`id`, `cut`.`at`, (
    SELECT count(*) FROM `collections` AS `p`
    WHERE `p`.`user_id` = `cut`.`user_id` AND `p`.`is_default` = 0 AND `p`.`name` = substr(`cut`.`name`, 1, `cut`.`at` - 1)
  ) AS `matches` FROM `cut`
),
`last` AS (SELECT `id`, max(`at`) AS `at` FROM `parts` GROUP BY `id` HAVING min(`matches`) = 1 AND max(`matches`) = 1)
SELECT `c`.`id`,
  (SELECT `p`.`id` FROM `collections` AS `p` WHERE `p`.`user_id` = `c`.`user_id` AND `p`.`is_default` = 0 AND `p`.`name` = substr(`c`.`name`, 1, `last`.`at` - 1)),
  substr(`c`.`name`, `last`.`at` + 3)
FROM `collections` AS `c` JOIN `last` ON `last`.`id` = `c`.`id`
WHERE substr(`c`.`name`, `last`.`at` + 3) <> '' AND trim(substr(`c`.`name`, `last`.`at` + 3)) = substr(`c`.`name`, `last`.`at` + 3);
--> statement-breakpoint
UPDATE `collections` SET `parent_id` = `n`.`parent_id`, `name` = `n`.`name` FROM `collection_nesting` AS `n` WHERE `collections`.`id` = `n`.`id`;
--> statement-breakpoint
DROP TABLE `collection_nesting`;
--> statement-breakpoint
-- Every level's order starts as the lists showed it: the Inbox first, then by name; inside a
-- collection its sub-collections (by name), then its links, oldest first, so that new ones go at the end.
UPDATE `collections` SET `position` = `ranked`.`position` FROM (
  SELECT `id`, row_number() OVER (PARTITION BY `user_id`, `parent_id` ORDER BY `is_default` DESC, lower(`name`), `id`) - 1 AS `position` FROM `collections`
) AS `ranked` WHERE `collections`.`id` = `ranked`.`id`;
--> statement-breakpoint
UPDATE `link_collections` SET `position` = `ranked`.`position` FROM (
  SELECT `lc`.`link_id`, `lc`.`collection_id`,
    (SELECT count(*) FROM `collections` AS `c` WHERE `c`.`parent_id` = `lc`.`collection_id`)
      + row_number() OVER (PARTITION BY `lc`.`collection_id` ORDER BY `l`.`created_at`, `l`.`id`) - 1 AS `position`
  FROM `link_collections` AS `lc` JOIN `links` AS `l` ON `l`.`id` = `lc`.`link_id`
) AS `ranked` WHERE `link_collections`.`link_id` = `ranked`.`link_id` AND `link_collections`.`collection_id` = `ranked`.`collection_id`;
