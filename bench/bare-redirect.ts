/**
 * The baseline: a bare Bun.serve answering every request with a fixed 302, compiled the
 * same way as linkshelf. Prints its address like linkshelf does.
 */
const port = Number(process.argv[2] ?? 0);
const server = Bun.serve({
  port,
  hostname: "127.0.0.1",
  fetch: () => new Response(null, { status: 302, headers: { Location: "https://example.com/", "Cache-Control": "no-store" } }),
});
console.error(`bare listening on http://127.0.0.1:${server.port}`);
process.on("SIGTERM", () => {
  server.stop();
  process.exit(0);
});

// A module, so its names stay its own.
export {};
