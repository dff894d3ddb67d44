-- Full-text search of links: one row per link (rowid = links.id) holding its name, description,
-- URL and saved page content, as written by src/search/index-text.ts (runs of CJK characters
-- become overlapping pairs, so two characters find them). Contentless: the text is kept in
-- links and link_contents only; contentless_delete lets a link's row be replaced by its rowid.
CREATE VIRTUAL TABLE `link_search` USING fts5(
	name, description, url, content,
	tokenize = 'porter unicode61 remove_diacritics 2',
	content = '', contentless_delete = 1
);
--> statement-breakpoint
-- Links to (re)index at the next start: the links of a database made before search existed.
CREATE TABLE `link_search_pending` (`link_id` integer PRIMARY KEY NOT NULL);
--> statement-breakpoint
INSERT INTO `link_search_pending` (`link_id`) SELECT `id` FROM `links`;
