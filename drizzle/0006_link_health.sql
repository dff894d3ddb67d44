CREATE TABLE `link_health` (
	`link_id` integer PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`broken` integer DEFAULT false NOT NULL,
	`moved_to` text,
	`failures` integer DEFAULT 0 NOT NULL,
	`failing_since` integer,
	`checked_at` integer,
	`next_at` integer NOT NULL,
	`ignored` integer DEFAULT false NOT NULL,
	`checks` text DEFAULT '[]' NOT NULL,
	FOREIGN KEY (`link_id`) REFERENCES `links`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "link_health_state_check" CHECK("link_health"."state" IN ('ok', 'moved', 'gone', 'failing', 'soft-404', 'unchecked'))
);
--> statement-breakpoint
CREATE INDEX `link_health_next_idx` ON `link_health` (`next_at`);--> statement-breakpoint
CREATE INDEX `link_health_state_idx` ON `link_health` (`state`,`broken`);