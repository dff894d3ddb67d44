/**
 * Running a migration's SQL, as drizzle-kit writes it: what the server does at start
 * (migrate.ts) and what the build does to learn the schema each migration makes
 * (migrations.macro.ts), which must be the same.
 */
import type { Database } from "bun:sqlite";

/** Where the applied migrations are recorded (drizzle's table, so a database made by drizzle's migrator opens as well). */
export const MIGRATIONS_TABLE = "__drizzle_migrations";

/** createMigrationsTable makes the record of applied migrations when it does not exist yet. */
export function createMigrationsTable(sqlite: Database): void {
  sqlite.run(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (id INTEGER PRIMARY KEY, hash TEXT NOT NULL, created_at NUMERIC)`);
}

/** runMigrationSql runs one migration's statements, which drizzle-kit separates with `--> statement-breakpoint`. */
export function runMigrationSql(sqlite: Database, sql: string): void {
  for (const statement of sql.split("--> statement-breakpoint")) {
    if (statement.trim()) sqlite.run(statement);
  }
}
