CREATE TABLE `link_contents` (
	`link_id` integer PRIMARY KEY NOT NULL,
	`title` text,
	`text_zstd` blob NOT NULL,
	`excerpt` text,
	`byline` text,
	`lang` text,
	`source` text NOT NULL,
	`captured_at` integer NOT NULL,
	FOREIGN KEY (`link_id`) REFERENCES `links`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "link_contents_source_check" CHECK("link_contents"."source" IN ('browser', 'server'))
);
