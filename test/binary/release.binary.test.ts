/**
 * `npm run release`: every file, SHA256SUMS that `sha256sum -c` accepts, and the linux-arm64
 * executable run under qemu's user-mode emulation through a short life: start, /healthz, a user
 * and a token from the CLI, a link through the API, its /l/:id redirect, the healthcheck command
 * and a backup. The release is built once and kept in dist/release/ while its sources are
 * unchanged (dist/release.stamp). The emulated part is skipped without qemu-user-static and
 * libc6:arm64 unless CI is set.
 */
import { beforeAll, describe, expect, it } from "bun:test";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { buildRelease, releaseFiles, sourceStamp, VERSION } from "../../release";
import { cleanEnv, createUserWithToken, queryFile, REPO_ROOT, runBinary, startServer, type BinaryWorkspace } from "../support/binary";
import { testDir } from "../support/dirs";
import { LIBC_ARM64, QEMU_AARCH64, requireProgram } from "../support/programs";

const RELEASE = join(REPO_ROOT, "dist", "release");
/** Five targets compile in ~25 s here when their runtimes are cached, longer on a first download. */
const BUILD_TIMEOUT_MS = 300_000;
/** Start-up and each command under emulation take about a second; the whole life well under a minute. */
const EMULATED_TIMEOUT_MS = 120_000;
/** Hashing the ~530 MB release takes a few seconds, more on a busy machine. */
const HASH_TIMEOUT_MS = 60_000;

beforeAll(async () => {
  const fresh = existsSync(`${RELEASE}.stamp`) && readFileSync(`${RELEASE}.stamp`, "utf8") === sourceStamp()
    && releaseFiles().every((file) => existsSync(join(RELEASE, file)));
  const started = performance.now();
  if (!fresh) await buildRelease(RELEASE);
  console.log(fresh ? "release: reusing dist/release/ (its sources are unchanged)" : `release: built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}, BUILD_TIMEOUT_MS);

describe("npm run release", () => {
  it("writes every platform's executable, both extension zips and SHA256SUMS, nothing else", () => {
    expect(readdirSync(RELEASE).sort()).toEqual(releaseFiles().sort());
    const sums = readFileSync(join(RELEASE, "SHA256SUMS"), "utf8").trimEnd().split("\n");
    expect(sums.map((line) => line.split("  ")[1])).toEqual(releaseFiles().slice(0, -1));
    for (const line of sums) expect(line).toMatch(/^[0-9a-f]{64} {2}linkshelf-[0-9a-z.-]+$/);
  });

  it("writes a SHA256SUMS that sha256sum -c accepts, and that catches a changed file", () => {
    const check = Bun.spawnSync(["sha256sum", "-c", "SHA256SUMS"], { cwd: RELEASE });
    expect(check.stdout.toString()).toBe(releaseFiles().slice(0, -1).map((file) => `${file}: OK\n`).join(""));
    expect(check.exitCode).toBe(0);

    // The same SHA256SUMS beside one file changed by a byte (the files it checked above are left out).
    const copy = testDir("release-sums");
    const changed = `linkshelf-${VERSION}-extension-firefox.zip`;
    symlinkSync(join(RELEASE, "SHA256SUMS"), join(copy, "SHA256SUMS"));
    writeFileSync(join(copy, changed), Buffer.concat([readFileSync(join(RELEASE, changed)), Buffer.from("x")]));
    const tampered = Bun.spawnSync(["sha256sum", "-c", "--ignore-missing", "SHA256SUMS"], { cwd: copy });
    expect(tampered.exitCode).toBe(1);
    expect(tampered.stdout.toString()).toBe(`${changed}: FAILED\n`);
  }, HASH_TIMEOUT_MS);

  it("builds each executable for its platform", () => {
    // The first 20 bytes only: each executable is about 100 MB.
    const head = (name: string) => {
      const bytes = Buffer.alloc(20);
      const fd = openSync(join(RELEASE, `linkshelf-${VERSION}-${name}`), "r");
      try {
        readSync(fd, bytes, 0, bytes.length, 0);
      } finally {
        closeSync(fd);
      }
      return bytes;
    };
    // ELF class 64, e_machine at offset 18: 0x3e x86-64, 0xb7 AArch64.
    expect([...head("linux-x64").subarray(0, 4)]).toEqual([0x7f, 0x45, 0x4c, 0x46]);
    expect(head("linux-x64")[18]).toBe(0x3e);
    expect(head("linux-arm64")[18]).toBe(0xb7);
    // Mach-O 64-bit magic (little-endian), then the CPU type: 0x01000007 x86-64, 0x0100000c arm64.
    expect(head("darwin-x64").readUInt32LE(0)).toBe(0xfeedfacf);
    expect(head("darwin-x64").readUInt32LE(4)).toBe(0x01000007);
    expect(head("darwin-arm64").readUInt32LE(4)).toBe(0x0100000c);
    expect(head("windows-x64.exe").subarray(0, 2).toString()).toBe("MZ");
  });

  it("packs each browser's extension with the package's version", () => {
    for (const target of ["chromium", "firefox"]) {
      const files = unzipSync(new Uint8Array(readFileSync(join(RELEASE, `linkshelf-${VERSION}-extension-${target}.zip`))));
      expect(JSON.parse(new TextDecoder().decode(files["manifest.json"])).version).toBe(VERSION);
    }
  });

  it.skipIf(process.arch !== "x64" || process.platform !== "linux")("prints the package's version with --version (linux-x64, run here)", async () => {
    const result = await runBinary(join(RELEASE, `linkshelf-${VERSION}-linux-x64`), ["--version"], { cwd: testDir("release-x64") });
    expect(result).toEqual({ exitCode: 0, stdout: `${VERSION}\n`, stderr: "" });
  });
});

const qemu = [QEMU_AARCH64, LIBC_ARM64].map(requireProgram).every(Boolean);

describe.skipIf(!qemu)("the linux-arm64 executable under qemu-aarch64-static", () => {
  /** A workspace whose `binary` is a two-line script running the arm64 executable under emulation. */
  function emulatedWorkspace(): BinaryWorkspace {
    const root = testDir("release-arm64");
    const binary = join(root, "linkshelf");
    writeFileSync(binary, `#!/bin/sh\nexec ${QEMU_AARCH64.path} -L / ${join(RELEASE, `linkshelf-${VERSION}-linux-arm64`)} "$@"\n`, { mode: 0o755 });
    const cwd = join(root, "run");
    mkdirSync(cwd);
    const dataDir = join(cwd, "data");
    return { root, binary, cwd, dataDir, dbPath: join(dataDir, "linkshelf.db") };
  }

  it("starts, answers /healthz, creates a user and a token, stores a link, redirects /l/:id, passes its healthcheck and backs up", async () => {
    const workspace = emulatedWorkspace();
    const { binary, cwd, dataDir } = workspace;
    const env = cleanEnv();
    const steps: string[] = [];

    const version = await runBinary(binary, ["--version"], { cwd, env });
    expect(version.stdout).toBe(`${VERSION}\n`);
    steps.push(`--version: ${version.stdout.trim()}`);

    const token = await createUserWithToken(workspace, "pi@example.test", "Pi", env);
    expect(token).toMatch(/^lks_/);
    steps.push("user create + token create: ok");

    const server = await startServer(binary, { cwd, dataDir, env });
    try {
      const health = await fetch(`${server.origin}/healthz`);
      expect(health.status).toBe(200);
      steps.push(`GET /healthz: ${health.status} ${await health.text()}`);

      const created = await fetch(`${server.origin}/api/v1/links`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Raspberry Pi", url: "https://www.raspberrypi.com/", favorite: false }),
      });
      expect(created.status).toBe(201);
      const { link } = (await created.json()) as { link: { id: number } };
      steps.push(`POST /api/v1/links: ${created.status}, id ${link.id}`);

      const redirect = await fetch(`${server.origin}/l/${link.id}`, { headers: { authorization: `Bearer ${token}` }, redirect: "manual" });
      expect(redirect.status).toBe(302);
      expect(redirect.headers.get("location")).toBe("https://www.raspberrypi.com/");
      steps.push(`GET /l/${link.id}: ${redirect.status} -> ${redirect.headers.get("location")}`);

      const healthcheck = await runBinary(binary, ["healthcheck", "--port", String(server.port), "--host", "127.0.0.1"], { cwd, env });
      expect(healthcheck).toEqual({ exitCode: 0, stdout: "", stderr: "" });
      steps.push("healthcheck: exit 0");

      const backupFile = join(cwd, "backup.db");
      const backup = await runBinary(binary, ["backup", backupFile, "--data-dir", dataDir], { cwd, env });
      expect(backup.exitCode).toBe(0);
      expect(queryFile<{ url: string; clicks: number }>(backupFile, "SELECT url, clicks FROM links")).toEqual([{ url: "https://www.raspberrypi.com/", clicks: 1 }]);
      steps.push(`backup: ${backup.stderr.trim()}`);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    steps.push("SIGTERM: exit 0");
    console.log(`linux-arm64 under qemu:\n  ${steps.join("\n  ")}`);
  }, EMULATED_TIMEOUT_MS);
});
