/**
 * LINKSHELF_TRUST_PROXY through the real executable: the TCP peer is the socket's (127.0.0.1
 * here), and forwarded headers count only when that peer is in the list.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { binaryWorkspace, cleanEnv, createUserWithToken, runBinary, startServer, type BinaryWorkspace, type RunningServer } from "../support/binary";

const SLOW = 60_000;
const PASSWORD = "long enough password";

let workspace: BinaryWorkspace;
const servers: RunningServer[] = [];

beforeAll(() => {
  workspace = binaryWorkspace("proxy");
}, 60_000);

afterAll(async () => {
  for (const server of servers) await server.stop();
  if (workspace) rmSync(workspace.root, { recursive: true, force: true });
});

/** serveWith starts a server on its own data directory, with one user, under a LINKSHELF_TRUST_PROXY value. */
async function serveWith(name: string, trust: string): Promise<{ server: RunningServer; email: string }> {
  const dataDir = join(workspace.root, name);
  const env = cleanEnv({ LINKSHELF_TRUST_PROXY: trust });
  const email = `${name}@example.test`;
  await createUserWithToken({ ...workspace, dataDir, dbPath: join(dataDir, "linkshelf.db") }, email, "Proxy", env);
  const server = await startServer(workspace.binary, { cwd: workspace.cwd, dataDir, env });
  servers.push(server);
  return { server, email };
}

async function signIn(server: RunningServer, email: string, password: string, forwardedFor: string): Promise<number> {
  const response = await fetch(`${server.origin}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": forwardedFor },
    body: new URLSearchParams({ email, password }),
    redirect: "manual",
  });
  await response.arrayBuffer();
  return response.status;
}

describe("LINKSHELF_TRUST_PROXY in the binary", () => {
  it("ignores X-Forwarded-For from a peer that is not a listed proxy: its failures count against its own address", async () => {
    const { server, email } = await serveWith("unlisted", "10.0.0.0/8");
    for (let i = 0; i < 10; i++) expect(await signIn(server, email, `wrong ${i}`, `203.0.113.${i}`)).toBe(401);
    expect(await signIn(server, email, PASSWORD, "203.0.113.200")).toBe(429);
  }, SLOW);

  it("takes the client from X-Forwarded-For when the socket's peer (127.0.0.1) is listed", async () => {
    const { server, email } = await serveWith("listed", "1");
    for (let i = 0; i < 10; i++) expect(await signIn(server, email, `wrong ${i}`, `203.0.113.${i}, 198.51.100.9`)).toBe(401);
    expect(await signIn(server, email, PASSWORD, "203.0.113.200, 198.51.100.9")).toBe(429);
    expect(await signIn(server, email, PASSWORD, "198.51.100.10")).toBe(303);
  }, SLOW);

  it.each(["10.0.0.0/33", "yes", "127.0.0.1,,::1"])("refuses to start with LINKSHELF_TRUST_PROXY=%p: exit 2 and one line naming it", async (value) => {
    const dataDir = join(workspace.root, "never");
    const result = await runBinary(workspace.binary, ["serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", dataDir], {
      cwd: workspace.cwd,
      env: cleanEnv({ LINKSHELF_TRUST_PROXY: value }),
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain("LINKSHELF_TRUST_PROXY");
  }, SLOW);
});
