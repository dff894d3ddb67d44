/**
 * The baseline for idle memory and start-up: a bare Bun.serve answering `GET /healthz` with
 * `200 {"status":"ok"}`, compiled the same way as linkshelf. `bare-healthz [port]`.
 */
const server = Bun.serve({
  port: Number(process.argv[2] ?? 0),
  hostname: "127.0.0.1",
  fetch: (request) =>
    new URL(request.url).pathname === "/healthz" ? Response.json({ status: "ok" }) : new Response("Not Found", { status: 404 }),
});
console.error(`bare listening on http://127.0.0.1:${server.port}`);
process.on("SIGTERM", () => {
  server.stop();
  process.exit(0);
});

// A module, so its names stay its own.
export {};
