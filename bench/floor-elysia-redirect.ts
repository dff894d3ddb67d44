/**
 * What Elysia's per-request pipeline costs the redirect: an Elysia app answering `GET /l/:id`
 * with a fixed 302 through the shape of hooks the redirect would need there (it had them before
 * it moved to Bun's router), and no linkshelf code and no database: a request check before routing (`onRequest`, as the Host check), a `derive` that
 * reads the two credential headers and sets the three RateLimit headers, and an async handler
 * writing the answer into `set`. No redirect that keeps these rules in Elysia's hooks can be faster.
 * Compiled the same way as linkshelf; prints its address like linkshelf does.
 */
import { Elysia } from "elysia";

const port = Number(process.argv[2] ?? 0);
let remaining = 1_000_000_000;
const app = new Elysia()
  .onRequest(({ request }) => {
    if (!URL.canParse(request.url)) throw new Error("malformed Host");
  })
  .derive({ as: "global" }, ({ request, set }) => {
    const credentials = request.headers.get("authorization") ?? request.headers.get("cookie");
    Object.assign(set.headers, { "RateLimit-Limit": "1000000000", "RateLimit-Remaining": String(--remaining), "RateLimit-Reset": "60" });
    return { requester: credentials };
  })
  .get("/l/:id", async ({ set }) => {
    await Promise.resolve();
    set.status = 302;
    set.headers.location = "https://example.com/";
    set.headers["cache-control"] = "no-store";
    return null;
  })
  .listen({ port, hostname: "127.0.0.1" });
console.error(`floor listening on http://127.0.0.1:${app.server!.port}`);
process.on("SIGTERM", () => {
  app.server!.stop();
  process.exit(0);
});
