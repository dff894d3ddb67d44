/**
 * The floor (floor-elysia-drizzle.ts) with as many routes as linkshelf declares, each answering
 * a constant: what Elysia costs an app of that size before any of its own code runs. The
 * routes' methods and paths are read from a JSON file (written by benchFootprint from
 * linkshelf's app); nothing else of linkshelf is in it.
 * `floor-elysia-routes <data-dir> <routes.json>`.
 */
import { Database } from "bun:sqlite";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { Elysia } from "elysia";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const [dataDir, routesFile] = [process.argv[2]!, process.argv[3]!];
const routes = JSON.parse(readFileSync(routesFile, "utf8")) as [method: string, path: string][];
mkdirSync(dataDir, { recursive: true });
const db = drizzle({ client: new Database(join(dataDir, "floor.db"), { create: true, strict: true }) });
db.$client.run("PRAGMA journal_mode = WAL");
const app = new Elysia().get("/healthz", () => ({ status: "ok" }));
for (const [method, path] of routes) if (path !== "/healthz") app.route(method, path, () => ({ status: "ok" }));
app.listen({ port: 0, hostname: "127.0.0.1" });
console.error(`floor listening on http://127.0.0.1:${app.server!.port} (${app.routes.length} routes)`);
process.on("SIGTERM", () => {
  app.server!.stop();
  db.$client.close();
  process.exit(0);
});
