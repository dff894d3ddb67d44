/**
 * The floor under linkshelf's start-up and memory: Elysia and drizzle over bun:sqlite, as
 * linkshelf uses them, with none of linkshelf's own code. It opens (creating) a database in
 * the data directory given as argument, in WAL mode, and serves `GET /healthz` from an
 * Elysia app. Compiled the same way as linkshelf; no app built on these can start faster
 * or use less memory than this. `floor-elysia-drizzle <data-dir> [<routes.json>]`.
 *
 * With a routes file (pairs of method and path; benchFootprint writes linkshelf's), it also
 * serves each of those routes with a constant: what Elysia costs an app of that size before
 * any of its own code runs.
 */
import { Database } from "bun:sqlite";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { Elysia } from "elysia";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const [dataDir, routesFile] = [process.argv[2]!, process.argv[3]];
mkdirSync(dataDir, { recursive: true });
const db = drizzle({ client: new Database(join(dataDir, "floor.db"), { create: true, strict: true }) });
db.$client.run("PRAGMA journal_mode = WAL");
const app = new Elysia().get("/healthz", () => ({ status: "ok" }));
const routes = routesFile ? (JSON.parse(readFileSync(routesFile, "utf8")) as [method: string, path: string][]) : [];
for (const [method, path] of routes) if (path !== "/healthz") app.route(method, path, () => ({ status: "ok" }));
app.listen({ port: 0, hostname: "127.0.0.1" });
console.error(`floor listening on http://127.0.0.1:${app.server!.port}`);
process.on("SIGTERM", () => {
  app.server!.stop();
  db.$client.close();
  process.exit(0);
});
