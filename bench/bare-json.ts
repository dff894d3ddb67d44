/**
 * The baseline for `GET /api/v1/collections`: a bare Bun.serve answering every request with
 * the bytes of one file (linkshelf's own answer, captured by the benchmark) as
 * `application/json`, compiled the same way as linkshelf. `bare-json <file> [port]`.
 */
const body = await Bun.file(process.argv[2]!).bytes();
const server = Bun.serve({
  port: Number(process.argv[3] ?? 0),
  hostname: "127.0.0.1",
  fetch: () => new Response(body, { headers: { "Content-Type": "application/json" } }),
});
console.error(`bare listening on http://127.0.0.1:${server.port}`);
process.on("SIGTERM", () => {
  server.stop();
  process.exit(0);
});

// A module, so its names stay its own.
export {};
