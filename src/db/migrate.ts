import type { Database } from "bun:sqlite";
import { readMigrations, type EmbeddedMigration } from "./migrations.macro" with { type: "macro" };

/** The migrations of drizzle/, inlined at build time. */
export const embeddedMigrations: EmbeddedMigration[] = readMigrations();

/** The table drizzle's own migrator keeps, so drizzle-kit and linkshelf agree on what ran. */
export const MIGRATIONS_TABLE = "__drizzle_migrations";

/**
 * applyMigrations runs, in order and in one immediate transaction, every migration newer
 * than the newest one recorded, and records each. Returns the tags it applied.
 */
export function applyMigrations(sqlite: Database, migrations: EmbeddedMigration[] = embeddedMigrations): string[] {
  sqlite.run(
    `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (id INTEGER PRIMARY KEY, hash TEXT NOT NULL, created_at NUMERIC)`,
  );
  const applied: string[] = [];
  sqlite.transaction(() => {
    const last = sqlite
      .query<{ created_at: number }, []>(`SELECT created_at FROM ${MIGRATIONS_TABLE} ORDER BY created_at DESC LIMIT 1`)
      .all()[0];
    for (const migration of migrations) {
      if (last && Number(last.created_at) >= migration.when) continue;
      for (const statement of migration.sql.split("--> statement-breakpoint")) {
        if (statement.trim()) sqlite.run(statement);
      }
      const hash = new Bun.CryptoHasher("sha256").update(migration.sql).digest("hex");
      sqlite.run(`INSERT INTO ${MIGRATIONS_TABLE} (hash, created_at) VALUES (?, ?)`, [hash, migration.when]);
      applied.push(migration.tag);
    }
  }).immediate();
  return applied;
}
