/**
 * What both browsers' end-to-end tests of the extension run against: the compiled server with
 * one user, the built extension, and a second loopback server with the pages to save (nothing
 * else is reachable).
 */
import { afterAll, beforeAll } from "bun:test";
import { join } from "node:path";
import { buildExtension } from "../../extension/build";
import { builtBinary, runBinary, startServer, type RunningServer } from "./binary";
import { ARTICLE_HTML } from "./capture.fixtures";
import { testDir } from "./dirs";

export const EMAIL = "owner@example.test";
export const PASSWORD = "correct horse battery";

export interface Stack {
  root: string;
  /** The compiled linkshelf, for CLI commands against the running server's data. */
  binary: string;
  dataDir: string;
  server: RunningServer;
  /**
   * `http://127.0.0.1:<port>/<name>` answers a page titled `Page <name>`; `/article` and
   * `/article/` (whatever the query) answer the fixture article amid navigation, ads and a footer
   * (ARTICLE_HTML of capture.fixtures.ts).
   */
  siteOrigin: string;
  /** The unpacked extension for a browser. */
  extension(target: "chromium" | "firefox"): string;
  stop(): Promise<void>;
}

export async function startStack(): Promise<Stack> {
  const root = testDir("extension-e2e");
  const binary = builtBinary();
  await buildExtension(join(root, "extension"));
  const dataDir = join(root, "data");
  const created = await runBinary(binary, ["user", "create", "--email", EMAIL, "--name", "Owner", "--data-dir", dataDir], { cwd: root, stdin: `${PASSWORD}\n` });
  if (created.exitCode !== 0) throw new Error(created.stderr);
  const server = await startServer(binary, { cwd: root, dataDir });
  const site = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      const name = new URL(request.url).pathname.slice(1);
      if (name === "article" || name === "article/") return new Response(ARTICLE_HTML, { headers: { "content-type": "text/html; charset=utf-8" } });
      return new Response(`<!doctype html><title>Page ${name}</title><p>${name}</p>`, { headers: { "content-type": "text/html" } });
    },
  });
  return {
    root,
    binary,
    dataDir,
    server,
    siteOrigin: `http://127.0.0.1:${site.port}`,
    extension: (target) => join(root, "extension", target),
    async stop() {
      site.stop(true);
      await server.stop();
    },
  };
}

/** One test file's stack, which stackForFile starts and stops around the file's tests. */
export interface FileStack {
  /** The running stack: there in the tests of a file whose browser is present. */
  readonly stack: Stack;
  /** closeAfter runs `close` after the file's tests, before the stack stops: for the browsers the tests launch against it. */
  closeAfter(close: () => Promise<unknown>): void;
}

/**
 * stackForFile starts a stack before the calling file's tests when its browser is `present`
 * (within `timeoutMs`: the server and the extension are built first), and stops it after them,
 * once what the tests launched is closed, in the order they launched it.
 */
export function stackForFile(present: boolean, timeoutMs: number): FileStack {
  let stack: Stack | undefined;
  const launched: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    if (present) stack = await startStack();
  }, timeoutMs);
  afterAll(async () => {
    for (const close of launched) await close();
    await stack?.stop();
  });
  return {
    get stack() {
      if (!stack) throw new Error("no stack: its browser is absent, or it has not started");
      return stack;
    },
    closeAfter: (close) => void launched.push(close),
  };
}

/** waitUntil polls `probe` until `done` accepts its value; past a deadline it fails with the last value. */
export async function waitUntil<T>(probe: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await Bun.sleep(100);
  }
}
