/**
 * The floor for serving a page copy: a bare Bun.serve answering every request with the bytes
 * linkshelf puts on the wire for the same request, compiled the same way as linkshelf: the copy as
 * stored (Zstandard) with `Content-Encoding: zstd` to a client whose `Accept-Encoding` names zstd,
 * the HTML file itself to any other. `bare-copy <html file> <zstd file> [port]`.
 */
const html = await Bun.file(process.argv[2]!).bytes();
const zstd = await Bun.file(process.argv[3]!).bytes();
const server = Bun.serve({
  port: Number(process.argv[4] ?? 0),
  hostname: "127.0.0.1",
  fetch: (request) => /\bzstd\b/i.test(request.headers.get("accept-encoding") ?? "")
    ? new Response(zstd, { headers: { "Content-Type": "text/html; charset=utf-8", "Content-Encoding": "zstd" } })
    : new Response(html, { headers: { "Content-Type": "text/html; charset=utf-8" } }),
});
console.error(`bare listening on http://127.0.0.1:${server.port}`);
process.on("SIGTERM", () => {
  server.stop();
  process.exit(0);
});

// A module, so its names stay its own.
export {};
