/**
 * The link checker in the real executable: a link stored before the start is checked at once
 * (its HEAD reaches a fake origin on 127.0.0.1, which LINKSHELF_LINK_CHECK_ALLOW_PRIVATE=1
 * admits), SIGTERM abandons the check in flight and the server still exits 0 with nothing
 * recorded for it, LINKSHELF_LINK_CHECK=off checks nothing, and with the shortest period and
 * `3/0s` a link answering 404 is broken at its third check.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { HealthListJson } from "../../src/contract/link-health";
import { binaryWorkspace, cleanEnv, createUserWithToken, queryFile, runBinary, startServer, type BinaryWorkspace } from "../support/binary";
import { heldRequest } from "../support/capture.fixtures";
import { fakeOrigin, type FakeOrigin } from "../support/favicon.fixtures";

const SLOW = 60_000;
const EMAIL = "checker@example.test";
let workspace: BinaryWorkspace;
let origin: FakeOrigin;
const held = heldRequest();

beforeAll(async () => {
  workspace = binaryWorkspace("health");
  origin = fakeOrigin({
    "/hold": held.route,
  });
  await createUserWithToken(workspace, EMAIL, "Checker", cleanEnv());
  const file = join(workspace.cwd, "bookmarks.html");
  writeFileSync(file, `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><A HREF="${origin.url}/hold">Held</A>\n</DL><p>\n`);
  const imported = await runBinary(workspace.binary, ["import", file, "--email", EMAIL, "--data-dir", workspace.dataDir], { cwd: workspace.cwd });
  expect(imported.exitCode).toBe(0);
}, SLOW);

afterAll(() => {
  origin?.stop();
  if (workspace) rmSync(workspace.root, { recursive: true, force: true });
});

describe("the server's link checker", () => {
  it("with LINKSHELF_LINK_CHECK=off sends no check", async () => {
    const before = origin.hits.length;
    const server = await startServer(workspace.binary, { ...workspace, env: cleanEnv({ LINKSHELF_LINK_CHECK: "off", LINKSHELF_LINK_CHECK_ALLOW_PRIVATE: "1" }) });
    try {
      // Switched on, the checker sends this link's check as it starts (the next test); off, nothing comes while it runs.
      expect((await fetch(`${server.origin}/healthz`)).status).toBe(200);
      await Bun.sleep(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(origin.hits.length).toBe(before);
  }, SLOW);

  it("checks a stored link right after the start, and on SIGTERM abandons the check in flight, records nothing and exits 0", async () => {
    const server = await startServer(workspace.binary, { ...workspace, env: cleanEnv({ LINKSHELF_LINK_CHECK: "7d", LINKSHELF_LINK_CHECK_ALLOW_PRIVATE: "1" }) });
    try {
      await held.arrived;
      expect(origin.hits).toEqual(["/hold"]);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    await held.abandoned;
    expect(server.log.text).toContain("linkshelf: stopped");
    expect(queryFile(workspace.dbPath, "SELECT count(*) AS n FROM link_health WHERE checks != '[]'")).toEqual([{ n: 0 }]);
  }, SLOW);

  it("with LINKSHELF_LINK_CHECK=1s and LINKSHELF_LINK_CHECK_CONFIRM=3/0s, calls a link answering 404 broken at its third check", async () => {
    const own = binaryWorkspace("health-confirm");
    const missing = fakeOrigin({});
    try {
      const token = await createUserWithToken(own, "confirm@example.test", "Confirm", cleanEnv());
      const file = join(own.cwd, "bookmarks.html");
      writeFileSync(file, `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><A HREF="${missing.url}/missing">Missing</A>\n</DL><p>\n`);
      expect((await runBinary(own.binary, ["import", file, "--email", "confirm@example.test", "--data-dir", own.dataDir], { cwd: own.cwd })).exitCode).toBe(0);
      const env = cleanEnv({ LINKSHELF_LINK_CHECK: "1s", LINKSHELF_LINK_CHECK_CONFIRM: "3/0s", LINKSHELF_LINK_CHECK_ALLOW_PRIVATE: "1" });
      const server = await startServer(own.binary, { ...own, env });
      try {
        // Each check of one host waits 10 s after the one before (the per-host spacing): the third comes about 20 s after the first.
        const deadline = Date.now() + 40_000;
        let broken: HealthListJson = { links: [] };
        while (broken.links.length === 0 && Date.now() < deadline) {
          await Bun.sleep(250);
          broken = await (await fetch(`${server.origin}/api/v1/links/health?state=broken`, { headers: { authorization: `Bearer ${token}` } })).json() as HealthListJson;
        }
        expect(broken.links).toHaveLength(1);
        expect(broken.links[0]!.health).toMatchObject({ state: "gone", broken: true });
        expect(broken.links[0]!.health.checks).toHaveLength(3);
        expect(missing.hitsOf("/missing")).toBe(3);
      } finally {
        expect(await server.stop()).toBe(0);
      }
    } finally {
      missing.stop();
      rmSync(own.root, { recursive: true, force: true });
    }
  }, SLOW);
});
