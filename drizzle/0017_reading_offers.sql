CREATE TABLE `reading_offers` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`answer` text NOT NULL,
	`answered_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "reading_offers_answer_check" CHECK("reading_offers"."answer" IN ('accepted', 'declined'))
);
