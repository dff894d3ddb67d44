import type { Database } from "bun:sqlite";
import pkg from "../../package.json" with { type: "json" };
import { createMigrationsTable, MIGRATIONS_TABLE, runMigrationSql } from "./migration-sql";
import { readMigrations, type EmbeddedMigration } from "./migrations.macro" with { type: "macro" };

/** The migrations of drizzle/, inlined at build time. */
export const embeddedMigrations: EmbeddedMigration[] = readMigrations();

export { MIGRATIONS_TABLE } from "./migration-sql";

/**
 * The linkshelf release as a number for SQLite's `user_version` (0.2.0 is 2000: major × 10⁶ +
 * minor × 10³ + patch), so that a database names the release that applied its newest migration.
 */
const RELEASE = pkg.version.split(/[.-]/, 3).reduce((number, part) => number * 1000 + (Number.parseInt(part, 10) || 0), 0);

/** releaseOf reads a release back from `user_version`; null when none was recorded (0, from before releases were). */
export function releaseOf(userVersion: number): string | null {
  if (userVersion <= 0) return null;
  return [Math.floor(userVersion / 1e6), Math.floor(userVersion / 1e3) % 1000, userVersion % 1000].join(".");
}

/**
 * applyMigrations runs, in order and in one immediate transaction, every migration newer
 * than the newest one recorded, and records each (and, in `user_version`, this release when it
 * applied any). Returns the tags it applied.
 */
export function applyMigrations(sqlite: Database, migrations: EmbeddedMigration[] = embeddedMigrations): string[] {
  createMigrationsTable(sqlite);
  const applied: string[] = [];
  sqlite.transaction(() => {
    const last = sqlite
      .query<{ created_at: number }, []>(`SELECT created_at FROM ${MIGRATIONS_TABLE} ORDER BY created_at DESC LIMIT 1`)
      .all()[0];
    for (const migration of migrations) {
      if (last && Number(last.created_at) >= migration.when) continue;
      runMigrationSql(sqlite, migration.sql);
      const hash = new Bun.CryptoHasher("sha256").update(migration.sql).digest("hex");
      sqlite.run(`INSERT INTO ${MIGRATIONS_TABLE} (hash, created_at) VALUES (?, ?)`, [hash, migration.when]);
      applied.push(migration.tag);
    }
    if (applied.length > 0) sqlite.run(`PRAGMA user_version = ${RELEASE}`);
  }).immediate();
  return applied;
}
