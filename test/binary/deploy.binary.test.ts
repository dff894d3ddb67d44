/**
 * deploy/linkshelf.service checked by systemd's own `systemd-analyze verify` (skipped without it
 * unless CI is set), deploy/compose.yaml read as Compose reads it, and the root folder
 * `npm run image` puts into the container.
 */
import { beforeAll, describe, expect, it } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { assembleContext, BINARY_IN_IMAGE, UID } from "../../deploy/image";
import { binaryWorkspace } from "../support/binary";
import { testDir } from "../support/dirs";
import { requireProgram, SYSTEMD_ANALYZE } from "../support/programs";

const DEPLOY = join(import.meta.dir, "..", "..", "deploy");
const UNIT = readFileSync(join(DEPLOY, "linkshelf.service"), "utf8");
const INSTALLED_BINARY = "/usr/local/bin/linkshelf";

/** settings reads a unit's `Key=value` lines (comments skipped); a key given twice keeps both values. */
function settings(unit: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const line of unit.split("\n")) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (match) found.set(match[1]!, [...(found.get(match[1]!) ?? []), match[2]!]);
  }
  return found;
}

describe("deploy/linkshelf.service", () => {
  const unit = settings(UNIT);

  it("runs /usr/local/bin/linkshelf serve as a dynamic user with its data in /var/lib/linkshelf", () => {
    expect(unit.get("ExecStart")).toEqual([`${INSTALLED_BINARY} serve`]);
    expect(unit.get("DynamicUser")).toEqual(["yes"]);
    expect(unit.get("StateDirectory")).toEqual(["linkshelf"]);
    expect(unit.get("Environment")).toContain("LINKSHELF_DATA_DIR=/var/lib/linkshelf");
    expect(unit.get("Restart")).toEqual(["on-failure"]);
  });

  it("gives the SIGTERM drain time to finish and sandboxes what a JIT runtime allows", () => {
    expect(unit.get("KillSignal")).toEqual(["SIGTERM"]);
    expect(Number.parseInt(unit.get("TimeoutStopSec")![0]!)).toBeGreaterThanOrEqual(30);
    for (const [key, value] of Object.entries({
      NoNewPrivileges: "yes", ProtectSystem: "strict", ProtectHome: "yes", PrivateTmp: "yes", PrivateDevices: "yes",
      RestrictAddressFamilies: "AF_INET AF_INET6 AF_UNIX",
    })) expect(unit.get(key)).toEqual([value]);
    expect(unit.get("SystemCallFilter")).toContain("@system-service");
    // The JIT writes code into memory it then runs.
    expect(unit.has("MemoryDenyWriteExecute")).toBe(false);
  });

  it("bounds its memory: reclaimed past 512 MiB, stopped past 768 MiB, both above the largest peak measured", () => {
    expect(unit.get("MemoryHigh")).toEqual(["512M"]);
    expect(unit.get("MemoryMax")).toEqual(["768M"]);
  });

  const analyze = requireProgram(SYSTEMD_ANALYZE);

  describe.skipIf(!analyze)("under systemd-analyze", () => {
    let dir = "";
    /** The unit as installed, its ExecStart pointing at a freshly built linkshelf (verify checks that it exists). */
    let installed = "";

    beforeAll(() => {
      dir = testDir("systemd");
      const { binary } = binaryWorkspace("systemd-binary");
      installed = join(dir, "linkshelf.service");
      writeFileSync(installed, UNIT.replace(`ExecStart=${INSTALLED_BINARY} `, `ExecStart=${binary} `));
    }, 60_000);

    const run = (args: string[]) => {
      const result = Bun.spawnSync([SYSTEMD_ANALYZE.path, ...args], { stdout: "pipe", stderr: "pipe" });
      return { exitCode: result.exitCode, output: `${result.stdout}${result.stderr}` };
    };

    it("passes systemd-analyze verify without a warning", () => {
      expect(run(["verify", installed])).toEqual({ exitCode: 0, output: "" });
    });

    it("is caught by the same check when a setting is misspelt (the check can fail)", () => {
      const broken = join(dir, "broken", "linkshelf.service");
      mkdirSync(join(dir, "broken"));
      writeFileSync(broken, readFileSync(installed, "utf8").replace("ProtectHome=yes", "ProtectHomes=yes"));
      expect(run(["verify", broken]).output).toContain("Unknown key 'ProtectHomes' in section [Service]");
    });

    it("rates an exposure of 2.0 or less in systemd-analyze security (OK)", () => {
      const security = run(["security", "--offline=true", installed]);
      const score = /Overall exposure level for linkshelf\.service: ([\d.]+) (\w+)/.exec(security.output);
      console.log(`systemd-analyze security: ${score?.[0]}`);
      expect(Number(score?.[1])).toBeLessThanOrEqual(2.0);
    });
  });
});

describe("deploy/compose.yaml", () => {
  const compose = Bun.YAML.parse(readFileSync(join(DEPLOY, "compose.yaml"), "utf8")) as {
    services: Record<string, { image: string; restart: string; ports: string[]; volumes: string[]; environment: Record<string, string> }>;
    volumes: Record<string, unknown>;
  };
  const service = compose.services.linkshelf!;

  it("runs the image npm run image tags, restarting unless stopped, on port 3000", () => {
    expect(service.image).toBe("linkshelf:latest");
    expect(service.restart).toBe("unless-stopped");
    expect(service.ports).toEqual(["3000:3000"]);
  });

  it("keeps /data in a named volume", () => {
    expect(service.volumes).toEqual(["linkshelf-data:/data"]);
    expect(Object.keys(compose.volumes)).toEqual(["linkshelf-data"]);
  });
});

describe.skipIf(process.platform !== "linux")("the container's root folder (npm run image)", () => {
  let context = "";
  let libraries: string[] = [];

  beforeAll(async () => {
    context = testDir("image-context");
    libraries = await assembleContext(context);
  }, 60_000);

  it("holds the executable, exactly the libraries ldd lists for it, and the user table, nothing else", () => {
    const rootfs = join(context, "rootfs");
    const files = readdirSync(rootfs, { recursive: true, withFileTypes: true })
      .filter((entry) => !entry.isDirectory())
      .map((entry) => `/${relative(rootfs, join(entry.parentPath, entry.name))}`)
      .sort();
    expect(libraries.some((library) => /\/libc\.so\.6$/.test(library))).toBe(true);
    expect(libraries.some((library) => /\/ld-linux[^/]*\.so\.\d$/.test(library))).toBe(true);
    expect(files).toEqual([BINARY_IN_IMAGE, "/etc/group", "/etc/passwd", ...libraries].sort());
    expect(readFileSync(join(rootfs, "etc", "passwd"), "utf8")).toContain(`linkshelf:x:${UID}:${UID}:`);
    expect(statSync(join(rootfs, "tmp")).mode & 0o7777).toBe(0o1777);
    expect(readdirSync(join(context, "data"))).toEqual([]);
  });
});
