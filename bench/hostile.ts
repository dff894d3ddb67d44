/**
 * `bun bench/hostile.ts [case]`: builds the executable into a temporary folder, runs it on
 * 127.0.0.1 and measures what hostile or very large input does to it, by the server's peak RSS
 * (VmHWM) and by the latency of `/healthz` and `/l/:id`, polled one after the other while the
 * request runs. Cases (all by default):
 *
 * - `nested`: a 16 MiB file of nested `<DT><H3>f</H3><DL><p>` uploaded on the import page.
 * - `large`: a 32 MiB file of 5,000 bookmarks with long descriptions, uploaded, then confirmed.
 * - `navigation`: 32 MiB of links outside any `<DL>` (read in full, nothing to import).
 * - `favicons`: 400 parallel `/favicon` lookups of 400 origins on 127.0.0.1 (one port each),
 *   each answering after 300 ms with a 250 KiB page and a 512 KiB icon.
 *
 * The sign-in before the uploads hashes a password, which alone takes the peak to about 120 MiB;
 * the peak before each case is printed too. Nothing outside 127.0.0.1 is contacted.
 */
import { readFileSync, rmSync } from "node:fs";
import { binaryWorkspace, cleanEnv, createUserWithToken, startServer, type RunningServer } from "../test/support/binary";

const MiB = 1024 * 1024;
const only = process.argv[2];

const peak = (server: RunningServer) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${server.proc.pid}/status`, "utf8"))![1]) / 1024;

function nestedFile(bytes: number): string {
  const unit = "<DT><H3>f</H3><DL><p>";
  return `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n${unit.repeat(Math.floor(bytes / unit.length))}`;
}

function largeFile(bytes: number, entries: number, folders: number): string {
  const padding = "d".repeat(Math.floor(bytes / entries) - 110);
  const parts = ["<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n"];
  for (let folder = 0; folder < folders; folder++) {
    parts.push(`<DT><H3>Folder ${folder}</H3>\n<DL><p>\n`);
    for (let i = folder; i < entries; i += folders) parts.push(`<DT><A HREF="https://site${i}.example/">Page ${i}</A>\n<DD>${padding}\n`);
    parts.push("</DL><p>\n");
  }
  return parts.join("") + "</DL><p>\n";
}

function navigationFile(bytes: number): string {
  const unit = `<P><A HREF="https://example.com/some/page">A page link</A> ${"text ".repeat(40)}\n`;
  return unit.repeat(Math.floor(bytes / unit.length) - 10);
}

/** during polls /healthz and /l/:id until `work` settles, and prints the slowest answers and the peak RSS. */
async function during(label: string, server: RunningServer, clickPath: string, token: string, work: Promise<Response>): Promise<Response> {
  let done = false;
  let rounds = 0;
  let slowestHealth = 0;
  let slowestClick = 0;
  const started = performance.now();
  const settled = work.then((response) => ((done = true), response));
  while (!done) {
    let at = performance.now();
    await (await fetch(`${server.origin}/healthz`)).text();
    slowestHealth = Math.max(slowestHealth, performance.now() - at);
    at = performance.now();
    await (await fetch(`${server.origin}${clickPath}`, { redirect: "manual", headers: { authorization: `Bearer ${token}` } })).text();
    slowestClick = Math.max(slowestClick, performance.now() - at);
    if (!done) rounds++;
  }
  const response = await settled;
  console.log(`${label}: ${response.status} in ${(performance.now() - started).toFixed(0)} ms; ${rounds} rounds of /healthz + /l/:id answered meanwhile, slowest /healthz ${slowestHealth.toFixed(0)} ms, slowest /l/:id ${slowestClick.toFixed(0)} ms; peak RSS ${peak(server).toFixed(0)} MiB`);
  return response;
}

async function importCase(name: string, file: string, confirm: boolean) {
  const workspace = binaryWorkspace("linkshelf-hostile-");
  const env = cleanEnv({ LINKSHELF_RATE_LIMIT: "off" });
  const token = await createUserWithToken(workspace, "bench@example.test", "Bench", env);
  const server = await startServer(workspace.binary, { cwd: workspace.cwd, dataDir: workspace.dataDir, env });
  try {
    const created = await fetch(`${server.origin}/api/v1/links`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Pinned", url: "https://pinned.example/", favorite: false }),
    });
    const clickPath = `/l/${((await created.json()) as { link: { id: number } }).link.id}`;
    const signIn = await fetch(`${server.origin}/login`, {
      method: "POST",
      redirect: "manual",
      headers: { origin: server.origin, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: "bench@example.test", password: "long enough password", next: "/" }),
    });
    const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!;
    console.log(`${name}: ${(Buffer.byteLength(file) / MiB).toFixed(1)} MiB; peak RSS before ${peak(server).toFixed(0)} MiB`);
    const form = new FormData();
    form.append("file", new File([file], `${name}.html`, { type: "text/html" }));
    const headers = { cookie, origin: server.origin };
    const upload = await during(`${name} upload`, server, clickPath, token, fetch(`${server.origin}/import`, { method: "POST", body: form, redirect: "manual", headers }));
    if (confirm && upload.status === 303) {
      const confirmUrl = `${server.origin}${upload.headers.get("location")}/confirm`;
      const body = new URLSearchParams();
      await during(`${name} confirm`, server, clickPath, token, fetch(confirmUrl, { method: "POST", body, redirect: "manual", headers }));
    }
  } finally {
    await server.stop();
    rmSync(workspace.root, { recursive: true, force: true });
  }
}

async function faviconCase(count: number) {
  const icon = new Uint8Array(512 * 1024);
  icon.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const page = `<!DOCTYPE html><html><head><link rel="icon" href="/i.png"></head><body>${"x".repeat(250 * 1024)}</body></html>`;
  const origins = Array.from({ length: count }, () => Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      await Bun.sleep(300);
      return new URL(request.url).pathname === "/"
        ? new Response(page, { headers: { "content-type": "text/html" } })
        : new Response(icon, { headers: { "content-type": "image/png" } });
    },
  }));
  const workspace = binaryWorkspace("linkshelf-hostile-");
  const server = await startServer(workspace.binary, {
    cwd: workspace.cwd,
    dataDir: workspace.dataDir,
    env: cleanEnv({ LINKSHELF_RATE_LIMIT: "off", LINKSHELF_FAVICON_ALLOW_PRIVATE: "1" }),
  });
  try {
    const before = peak(server);
    const started = performance.now();
    const statuses = await Promise.all(origins.map(async (origin) => {
      const response = await fetch(`${server.origin}/favicon?url=${encodeURIComponent(`http://127.0.0.1:${origin.port}/`)}`);
      await response.arrayBuffer();
      return response.status;
    }));
    const byStatus = Object.entries(Object.groupBy(statuses, String)).map(([status, list]) => `${list!.length} × ${status}`).join(", ");
    console.log(`favicons: ${count} parallel lookups in ${(performance.now() - started).toFixed(0)} ms: ${byStatus}; peak RSS ${before.toFixed(0)} MiB before, ${peak(server).toFixed(0)} MiB after`);
  } finally {
    await server.stop();
    for (const origin of origins) origin.stop(true);
    rmSync(workspace.root, { recursive: true, force: true });
  }
}

if (!only || only === "nested") await importCase("nested", nestedFile(16 * MiB), true);
if (!only || only === "large") await importCase("large", largeFile(32 * MiB - 200_000, 5000, 50), true);
if (!only || only === "navigation") await importCase("navigation", navigationFile(32 * MiB), false);
if (!only || only === "favicons") await faviconCase(400);
