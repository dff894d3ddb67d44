CREATE TABLE `favicon_cache` (
	`origin` text PRIMARY KEY NOT NULL,
	`content_type` text,
	`bytes` blob,
	`etag` text,
	`fetched_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `favicon_cache_fetched_idx` ON `favicon_cache` (`fetched_at`);