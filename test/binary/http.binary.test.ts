/**
 * The HTTP edge through the real executable and Bun's own router and request parser: a `Host`
 * that does not parse, spellings of limited paths, bounded logs of unexpected errors, and the
 * access log (`LINKSHELF_LOG=access`). Raw requests go over a socket to 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { rmSync } from "node:fs";
import { connect } from "node:net";
import { binaryWorkspace, cleanEnv, connectRaw, createUserWithToken, queryFile, startServer, writeFile, type BinaryWorkspace, type RunningServer } from "../support/binary";

const SLOW = 30_000;
const ACCESS_LINE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z) (\S+) ([A-Z]+) (\S+) (\d{3}) (\d+\.\d)ms$/;

interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** rawRequest sends `GET target` with the given header lines (and `Connection: close`) and reads the whole answer. */
function rawRequest(port: number, target: string, headerLines: string[], version = "HTTP/1.1"): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, "127.0.0.1", () => {
      socket.write(`GET ${target} ${version}\r\n${[...headerLines, "Connection: close"].join("\r\n")}\r\n\r\n`);
    });
    socket.on("data", (chunk) => chunks.push(Buffer.from(chunk)));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const [head = "", ...rest] = text.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body: rest.join("\r\n\r\n") });
    });
  });
}

let workspace: BinaryWorkspace;

beforeAll(() => {
  workspace = binaryWorkspace("http");
}, 60_000);

afterAll(() => {
  if (workspace) rmSync(workspace.root, { recursive: true, force: true });
});

/** A server on a fresh data directory with a user whose link 1 is in a PUBLIC collection. */
async function serverWithPublicLink(env: Record<string, string>): Promise<{ server: RunningServer; token: string; linkId: number; dbPath: string }> {
  const dataDir = `${workspace.dataDir}-${crypto.randomUUID()}`;
  const ws = { ...workspace, dataDir, dbPath: `${dataDir}/linkshelf.db` };
  const token = await createUserWithToken(ws, "owner@example.test", "Owner", cleanEnv());
  const server = await startServer(ws.binary, { cwd: ws.cwd, dataDir, env: cleanEnv(env) });
  const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const collection = await (await fetch(`${server.origin}/api/v1/collections`, { method: "POST", headers: auth, body: JSON.stringify({ name: "Shared", visibility: "PUBLIC" }) })).json() as { collection: { id: number } };
  const link = await (await fetch(`${server.origin}/api/v1/links`, {
    method: "POST", headers: auth, body: JSON.stringify({ name: "Example", url: "https://example.com/", favorite: false, collectionIds: [collection.collection.id] }),
  })).json() as { link: { id: number } };
  return { server, token, linkId: link.link.id, dbPath: ws.dbPath };
}

const clicksOf = (dbPath: string, id: number) => queryFile<{ clicks: number }>(dbPath, "SELECT clicks FROM links WHERE id = ?", [id])[0]!.clicks;

describe("a request whose Host header does not parse, through the binary", () => {
  it("is 400 BAD_REQUEST (JSON, or HTML for a browser) before routing: no click, no limit spent, nothing logged", async () => {
    const { server, linkId, dbPath } = await serverWithPublicLink({ LINKSHELF_RATE_LIMIT: "5/60" });
    try {
      const logBefore = server.log.text.length;
      for (const host of ['a"b', "a b", "a:b", "[::1", "a@b", "a\\b"]) {
        for (let i = 0; i < 10; i++) {
          const answer = await rawRequest(server.port, `/l/${linkId}`, [`Host: ${host}`]);
          expect({ host, status: answer.status, type: answer.headers.get("content-type") }).toEqual({ host, status: 400, type: expect.stringMatching(/^application\/json/) });
          expect(JSON.parse(answer.body)).toEqual({ message: expect.any(String), code: "BAD_REQUEST" });
          expect(answer.headers.has("ratelimit-limit")).toBe(false);
          expect(answer.headers.has("location")).toBe(false);
        }
      }
      // Exactly these bytes, on a connection kept open: the answer comes, and the connection serves a next request.
      const kept = await connectRaw(server.port);
      try {
        kept.write(`GET /l/${linkId} HTTP/1.1\r\nHost: a"b\r\n\r\n`);
        await kept.received.waitFor(/^HTTP\/1\.1 400 [\s\S]*"code":"BAD_REQUEST"\}/);
        kept.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
        await kept.received.waitFor(/HTTP\/1\.1 200 [\s\S]*\{"status":"ok"\}/);
      } finally {
        kept.close();
      }
      const page = await rawRequest(server.port, `/l/${linkId}`, ['Host: a"b', "Accept: text/html,*/*"]);
      expect(page.status).toBe(400);
      expect(page.headers.get("content-type")).toStartWith("text/html");
      expect(page.body).toContain("Bad request");
      // HTTP/1.0 allows leaving Host out; without it there is no URL either.
      const noHost = await rawRequest(server.port, `/l/${linkId}`, [], "HTTP/1.0");
      expect([noHost.status, JSON.parse(noHost.body).code]).toEqual([400, "BAD_REQUEST"]);
      // The same for the favicon proxy and the API, which are limited too.
      for (const target of ["/favicon?url=https%3A%2F%2Fexample.com%2F", "/api/v1/collections", `/${linkId}`]) {
        expect((await rawRequest(server.port, target, ['Host: a"b'])).status).toBe(400);
      }

      expect(clicksOf(dbPath, linkId)).toBe(0);
      // Not one line in the log, let alone a stack per request.
      expect(server.log.text.slice(logBefore)).toBe("");
      // The anonymous budget is whole: none of the above was counted.
      const first = await fetch(`${server.origin}/l/${linkId}`, { redirect: "manual" });
      expect([first.status, first.headers.get("ratelimit-remaining")]).toEqual([302, "4"]);
      expect(clicksOf(dbPath, linkId)).toBe(1);
    } finally {
      await server.stop();
    }
  }, SLOW);
});

describe("spellings of limited paths, through Bun's router", () => {
  it("limits and counts every spelling that reaches /l/:id, /favicon or the API, and answers the others 404 unlimited", async () => {
    const { server, token, linkId, dbPath } = await serverWithPublicLink({ LINKSHELF_RATE_LIMIT: "1000/60" });
    try {
      const host = `Host: 127.0.0.1:${server.port}`;
      const targets = [
        `/l/${linkId}`, `/l/${linkId}/`, `//l/${linkId}`, `/l//${linkId}`, `/l/${linkId}//`, `/L/${linkId}`,
        "/favicon?url=javascript:x", "/favicon/?url=javascript:x", "//favicon?url=javascript:x", "/favicon//?url=javascript:x", "/FAVICON?url=javascript:x",
        "/api/v1/collections", "/api/v1/collections/", "/api/v1//collections", "//api/v1/collections", "/API/v1/collections", "/api/V1/collections",
      ];
      let redirects = 0;
      const seen: string[] = [];
      for (const target of targets) {
        const headers = target.includes("/api/") || target.includes("/API/") ? [host, `Authorization: Bearer ${token}`] : [host];
        const answer = await rawRequest(server.port, target, headers);
        const limited = answer.headers.has("ratelimit-limit");
        if (answer.status === 302) redirects++;
        // Whatever the handler answered (302, 400 from the favicon proxy, 200 or the API's 404) is limited; the router's own 404 is not.
        const routerNotFound = answer.status === 404 && !limited;
        expect({ target, limited: limited || routerNotFound, status: answer.status }).toEqual({ target, limited: true, status: expect.any(Number) });
        seen.push(`${target} ${answer.status} ${limited ? "limited" : "unlimited"}`);
      }
      // The canonical spellings and the one trailing slash reach their handlers.
      expect(seen).toEqual(expect.arrayContaining([
        `/l/${linkId} 302 limited`, `/l/${linkId}/ 302 limited`, `/L/${linkId} 404 unlimited`,
        "/favicon?url=javascript:x 400 limited", "/favicon/?url=javascript:x 400 limited", "/FAVICON?url=javascript:x 404 unlimited",
        "/api/v1/collections 200 limited", "/api/v1/collections/ 200 limited", "/API/v1/collections 404 unlimited",
      ]));
      expect(clicksOf(dbPath, linkId)).toBe(redirects);
      console.log(`spellings through the binary:\n  ${seen.join("\n  ")}`);
    } finally {
      await server.stop();
    }
  }, SLOW);
});

describe("unexpected errors through the binary", () => {
  it("add about one line each to the log, and a stack trace only once", async () => {
    const { server, token, dbPath } = await serverWithPublicLink({ LINKSHELF_RATE_LIMIT: "off" });
    try {
      writeFile(dbPath, "DROP TABLE link_collections");
      const before = server.log.text.length;
      for (let i = 0; i < 200; i++) {
        // The last one is spelled with a trailing slash, so that its line marks the end.
        const path = i === 199 ? "/api/v1/links/favorites/" : `/api/v1/links/favorites?page=${i}`;
        const response = await fetch(`${server.origin}${path}`, { headers: { authorization: `Bearer ${token}` } });
        expect(response.status).toBe(500);
        expect(await response.json()).toEqual({ message: expect.any(String), code: "INTERNAL" });
      }
      await server.log.waitFor(/favorites\/: SQLiteError[^\n]*\n/);
      const added = server.log.text.slice(before);
      const lines = added.trimEnd().split("\n");
      expect(lines.filter((line) => /^linkshelf: unexpected error on GET \/api\/v1\/links\/favorites\/?: SQLiteError: no such table: link_collections$/.test(line))).toHaveLength(200);
      // The stack, once: its first line repeats the error without the prefix.
      expect(lines.filter((line) => line === "SQLiteError: no such table: link_collections")).toHaveLength(1);
      // 200 one-liners plus one short stack, far below a stack per request.
      expect(lines.length).toBeLessThan(200 + 15);
      expect(added.length).toBeLessThan(200 * 120 + 4000);
      expect(added).not.toContain(token);
      expect(added).not.toContain("page=");
      console.log(`200 failing requests added ${added.length} bytes, ${lines.length} lines to the log`);
    } finally {
      await server.stop();
    }
  }, SLOW);
});

describe("LINKSHELF_LOG=access through the binary", () => {
  it("logs one line per request, with the peer address and the path without its query, and never a secret", async () => {
    const { server, token, linkId } = await serverWithPublicLink({ LINKSHELF_LOG: "access", LINKSHELF_RATE_LIMIT: "off" });
    try {
      // The set-up's last request; its line is written once its answer has gone out.
      await server.log.waitFor(/POST \/api\/v1\/links 201 [\d.]+ms\n/);
      const before = server.log.text.length;
      expect((await fetch(`${server.origin}/l/${linkId}?token=${token}`, { redirect: "manual", headers: { cookie: "linkshelf_session=cookie-secret" } })).status).toBe(302);
      expect((await fetch(`${server.origin}/api/v1/collections`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      expect((await fetch(`${server.origin}/login`, {
        method: "POST", redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "email=owner%40example.test&password=password-secret",
      })).status).toBe(401);
      expect((await rawRequest(server.port, "/healthz?x=1", ['Host: a"b'])).status).toBe(400);
      await server.log.waitFor(/GET \/healthz 400 [\d.]+ms\n/);
      const lines = server.log.text.slice(before).trimEnd().split("\n");
      // The failed sign-in also writes its own line (for fail2ban); every other line is the access log's.
      expect(lines.filter((line) => !ACCESS_LINE.test(line))).toEqual(["sign-in failed for owner@example.test from 127.0.0.1"]);
      expect(lines.filter((line) => ACCESS_LINE.test(line)).map((line) => ACCESS_LINE.exec(line)?.slice(2, 6))).toEqual([
        ["127.0.0.1", "GET", `/l/${linkId}`, "302"],
        ["127.0.0.1", "GET", "/api/v1/collections", "200"],
        ["127.0.0.1", "POST", "/login", "401"],
        ["127.0.0.1", "GET", "/healthz", "400"],
      ]);
      const text = lines.join("\n");
      for (const secret of [token, "cookie-secret", "password-secret"]) expect(text).not.toContain(secret);
      console.log(`access log lines:\n  ${lines.join("\n  ")}`);
    } finally {
      await server.stop();
    }
  }, SLOW);
});
