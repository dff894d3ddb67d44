import { afterEach, describe, expect, it } from "bun:test";
import { chmodSync, existsSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ConfigError, databasePath, loadConfig, parseRateLimit } from "../../src/common/config";
import { inIpRanges } from "../../src/common/ip";
import { testDir } from "../support/dirs";

const isRoot = process.getuid?.() === 0;

/** loadError returns the ConfigError that loadConfig throws (failing the test when it does not). */
function loadError(flags: Parameters<typeof loadConfig>[0], env: Record<string, string>): ConfigError {
  try {
    loadConfig(flags, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify({ flags, env })}`);
}

describe("loadConfig", () => {
  it("defaults to 0.0.0.0:3000, ./data, 300 requests per 60 s, page fetching on and every other switch off", () => {
    expect(loadConfig({}, {})).toEqual({
      port: 3000,
      host: "0.0.0.0",
      dataDir: resolve("./data"),
      rateLimit: { limit: 300, windowSeconds: 60 },
      trustedProxies: [],
      faviconAllowPrivate: false,
      fetchContent: true,
      fetchPrivate: false,
      linkCheck: { periodMs: 7 * 86_400_000, allowPrivate: false, confirmFailures: 3, confirmSpanMs: 7 * 86_400_000 },
      log: { access: false },
      backup: null,
      trashDays: 30,
      copyQuota: 2 * 1024 ** 3,
    });
  });

  it("gives each user 2 GiB of page copies by default, LINKSHELF_COPY_QUOTA in bytes or binary units (0: none), and refuses anything else", () => {
    expect(loadConfig({}, { LINKSHELF_COPY_QUOTA: "" }).copyQuota).toBe(2 * 1024 ** 3);
    for (const [value, bytes] of [["0", 0], ["1000", 1000], ["500MiB", 500 * 1024 ** 2], ["10g", 10 * 1024 ** 3], ["64 KiB", 64 * 1024], ["1TiB", 1024 ** 4]] as const) {
      expect(loadConfig({}, { LINKSHELF_COPY_QUOTA: value }).copyQuota).toBe(bytes);
    }
    for (const value of ["-1", "2GB", "1.5GiB", "lots", "2 GiB extra", "99999999999999999"]) {
      expect(loadError({}, { LINKSHELF_COPY_QUOTA: value }).message).toBe(`invalid LINKSHELF_COPY_QUOTA "${value}": expected a size such as 2GiB, 500MiB or 0`);
    }
  });

  it("keeps deleted items 30 days by default, LINKSHELF_TRASH_DAYS from 0 (no trash) to 3650, and refuses anything else", () => {
    expect(loadConfig({}, { LINKSHELF_TRASH_DAYS: "" }).trashDays).toBe(30);
    for (const days of ["0", "1", "30", "3650"]) expect(loadConfig({}, { LINKSHELF_TRASH_DAYS: days }).trashDays).toBe(Number(days));
    for (const value of ["3651", "-1", "1.5", "7d", " 7", "10000", "abc"]) {
      expect(loadError({}, { LINKSHELF_TRASH_DAYS: value }).message).toContain("LINKSHELF_TRASH_DAYS");
    }
  });

  it("turns the access log on with LINKSHELF_LOG=access, and off with off or an empty value", () => {
    expect(loadConfig({}, { LINKSHELF_LOG: "access" }).log).toEqual({ access: true });
    expect(loadConfig({}, { LINKSHELF_LOG: "off" }).log).toEqual({ access: false });
    expect(loadConfig({}, { LINKSHELF_LOG: "" }).log).toEqual({ access: false });
  });

  it.each(["ACCESS", "access,", "1", "debug", " access"])("refuses LINKSHELF_LOG=%p with a ConfigError", (value) => {
    const error = loadError({}, { LINKSHELF_LOG: value });
    expect(error.message).toContain("LINKSHELF_LOG");
    expect(error.message).not.toContain("\n");
  });

  it("resolves the data directory to an absolute path", () => {
    expect(loadConfig({}, { LINKSHELF_DATA_DIR: "rel/dir" }).dataDir).toBe(join(process.cwd(), "rel/dir"));
    expect(loadConfig({ "data-dir": "/srv/linkshelf" }, {}).dataDir).toBe("/srv/linkshelf");
  });

  it("takes the environment over the default", () => {
    const config = loadConfig({}, { LINKSHELF_PORT: "8080", LINKSHELF_HOST: "127.0.0.1", LINKSHELF_DATA_DIR: "/var/lib/linkshelf" });
    expect([config.port, config.host, config.dataDir]).toEqual([8080, "127.0.0.1", "/var/lib/linkshelf"]);
  });

  it("takes a flag over the environment", () => {
    const config = loadConfig(
      { port: "9090", host: "::1", "data-dir": "/flag/dir" },
      { LINKSHELF_PORT: "8080", LINKSHELF_HOST: "127.0.0.1", LINKSHELF_DATA_DIR: "/env/dir" },
    );
    expect([config.port, config.host, config.dataDir]).toEqual([9090, "::1", "/flag/dir"]);
  });

  it("takes each flag over its own variable only", () => {
    const config = loadConfig({ port: "9090" }, { LINKSHELF_HOST: "127.0.0.1", LINKSHELF_DATA_DIR: "/env/dir" });
    expect([config.port, config.host, config.dataDir]).toEqual([9090, "127.0.0.1", "/env/dir"]);
  });

  it("judges a bad flag even when the environment is good", () => {
    loadError({ port: "abc" }, { LINKSHELF_PORT: "8080" });
  });

  it.each(["0", "1", "65535", "3000"])("accepts port %p", (port) => {
    expect(loadConfig({}, { LINKSHELF_PORT: port }).port).toBe(Number(port));
    expect(loadConfig({ port }, {}).port).toBe(Number(port));
  });

  it.each(["abc", "65536", "-1", "", "3000.5", "1e3", "0x50", " 3000", "3000 ", "99999", "123456"])("refuses port %p with a ConfigError", (port) => {
    const error = loadError({}, { LINKSHELF_PORT: port });
    expect(error.message).toContain("port");
    expect(error.message).not.toContain("\n");
    loadError({ port }, {});
  });

  it("refuses an empty host", () => {
    loadError({}, { LINKSHELF_HOST: "" });
    loadError({ host: "  " }, {});
  });

  it.each([
    ["off", null],
    ["10/1", { limit: 10, windowSeconds: 1 }],
    ["300/60", { limit: 300, windowSeconds: 60 }],
    ["1/86400", { limit: 1, windowSeconds: 86400 }],
  ] as const)("reads LINKSHELF_RATE_LIMIT %p", (value, expected) => {
    expect(loadConfig({}, { LINKSHELF_RATE_LIMIT: value }).rateLimit).toEqual(expected);
    expect(parseRateLimit(value)).toEqual(expected);
  });

  it.each(["abc", "10", "0/60", "10/0", "-1/5", "10/5/2", " 10/60", "10/60 ", "10 / 60", "/60", "10/", "1.5/60", "10/1e2", "Off", "", "0/0"])(
    "refuses LINKSHELF_RATE_LIMIT %p with a ConfigError that names the variable",
    (value) => {
      const error = loadError({}, { LINKSHELF_RATE_LIMIT: value });
      expect(error.message).toContain("LINKSHELF_RATE_LIMIT");
      expect(error.message).not.toContain("\n");
    },
  );

  it("reads LINKSHELF_FAVICON_ALLOW_PRIVATE: 1 is on, 0 or unset is off, anything else is an error", () => {
    const name = "LINKSHELF_FAVICON_ALLOW_PRIVATE";
    expect(loadConfig({}, { [name]: "1" }).faviconAllowPrivate).toBe(true);
    expect(loadConfig({}, { [name]: "0" }).faviconAllowPrivate).toBe(false);
    expect(loadConfig({}, {}).faviconAllowPrivate).toBe(false);
    for (const value of ["yes", "true", "on", "2", " 1"]) {
      const error = loadError({}, { [name]: value });
      expect(error.message).toContain(name);
    }
  });

  it("reads LINKSHELF_FETCH_PRIVATE: 1 is on, 0 or unset is off, anything else is an error; the icon proxy's switch still turns it on", () => {
    const name = "LINKSHELF_FETCH_PRIVATE";
    expect(loadConfig({}, { [name]: "1" }).fetchPrivate).toBe(true);
    expect(loadConfig({}, { [name]: "0" }).fetchPrivate).toBe(false);
    expect(loadConfig({}, {}).fetchPrivate).toBe(false);
    expect(loadConfig({}, { LINKSHELF_FAVICON_ALLOW_PRIVATE: "1" }).fetchPrivate).toBe(true);
    // Page fetching's own switch does not open the icon proxy.
    expect(loadConfig({}, { [name]: "1" }).faviconAllowPrivate).toBe(false);
    for (const value of ["yes", "true", "on", "2", " 1"]) {
      const error = loadError({}, { [name]: value });
      expect(error.message).toContain(name);
    }
  });

  it("reads LINKSHELF_FETCH_CONTENT: on, unset or empty fetch pages, off does not, anything else is an error", () => {
    const name = "LINKSHELF_FETCH_CONTENT";
    expect(loadConfig({}, { [name]: "on" }).fetchContent).toBe(true);
    expect(loadConfig({}, { [name]: "" }).fetchContent).toBe(true);
    expect(loadConfig({}, {}).fetchContent).toBe(true);
    expect(loadConfig({}, { [name]: "off" }).fetchContent).toBe(false);
    for (const value of ["OFF", "On", "0", "1", "no", "false", " off", "off "]) {
      const error = loadError({}, { [name]: value });
      expect(error.message).toContain(name);
      expect(error.message).not.toContain("\n");
    }
  });

  describe("the link checker's settings", () => {
    it("reads LINKSHELF_LINK_CHECK as a period such as 12h, 7d or 30d, or off", () => {
      const period = (value: string) => loadConfig({}, { LINKSHELF_LINK_CHECK: value }).linkCheck.periodMs;
      expect([period("12h"), period("7d"), period("30d"), period(""), period("off")]).toEqual([12 * 3_600_000, 7 * 86_400_000, 30 * 86_400_000, 7 * 86_400_000, null]);
    });

    it.each(["OFF", "7", "7 days", "-1d", "0d", "1w", "400d"])("refuses LINKSHELF_LINK_CHECK=%p with one line naming it", (value) => {
      const error = loadError({}, { LINKSHELF_LINK_CHECK: value });
      expect(error.message).toContain("LINKSHELF_LINK_CHECK");
      expect(error.message).not.toContain("\n");
    });

    it("reads LINKSHELF_LINK_CHECK_ALLOW_PRIVATE as 1 or 0, off when unset, and refuses anything else", () => {
      const name = "LINKSHELF_LINK_CHECK_ALLOW_PRIVATE";
      expect([loadConfig({}, { [name]: "1" }), loadConfig({}, { [name]: "0" }), loadConfig({}, {})].map((config) => config.linkCheck.allowPrivate)).toEqual([true, false, false]);
      expect(loadConfig({}, { LINKSHELF_FAVICON_ALLOW_PRIVATE: "1" }).linkCheck.allowPrivate).toBe(false);
      expect(loadError({}, { [name]: "yes" }).message).toContain(name);
    });

    it("reads LINKSHELF_LINK_CHECK_CONFIRM as failures over a period", () => {
      const confirm = (value: string) => {
        const { confirmFailures, confirmSpanMs } = loadConfig({}, { LINKSHELF_LINK_CHECK_CONFIRM: value }).linkCheck;
        return [confirmFailures, confirmSpanMs];
      };
      expect([confirm("3/7d"), confirm("1/0s"), confirm("5/12h")]).toEqual([[3, 7 * 86_400_000], [1, 0], [5, 12 * 3_600_000]]);
    });

    it.each(["3", "0/7d", "3/", "3/7", "/7d", "101/1d", "3/7d ", "x/7d"])("refuses LINKSHELF_LINK_CHECK_CONFIRM=%p with one line naming it", (value) => {
      const error = loadError({}, { LINKSHELF_LINK_CHECK_CONFIRM: value });
      expect(error.message).toContain("LINKSHELF_LINK_CHECK_CONFIRM");
      expect(error.message).not.toContain("\n");
    });
  });

  it("keeps the two settings independent", () => {
    const config = loadConfig({}, { LINKSHELF_TRUST_PROXY: "1" });
    expect([config.trustedProxies.length, config.faviconAllowPrivate]).toEqual([2, false]);
  });

  describe("LINKSHELF_TRUST_PROXY", () => {
    const trusts = (value: string | undefined, address: string) =>
      inIpRanges(address, loadConfig({}, value === undefined ? {} : { LINKSHELF_TRUST_PROXY: value }).trustedProxies);

    it("trusts no proxy when unset, empty or 0", () => {
      for (const value of [undefined, "", "0"]) {
        expect(loadConfig({}, value === undefined ? {} : { LINKSHELF_TRUST_PROXY: value }).trustedProxies).toEqual([]);
        expect(trusts(value, "127.0.0.1")).toBe(false);
      }
    });

    it("reads 1 as loopback only: 127.0.0.0/8, ::1 and IPv4-mapped loopback", () => {
      for (const address of ["127.0.0.1", "127.255.255.254", "::1", "::ffff:127.0.0.1", "0:0:0:0:0:0:0:1"]) expect(trusts("1", address)).toBe(true);
      for (const address of ["128.0.0.1", "126.255.255.255", "10.0.0.1", "192.168.1.20", "::2", "::ffff:10.0.0.1", "fe80::1", "unknown"]) {
        expect(trusts("1", address)).toBe(false);
      }
    });

    it("reads a comma list of addresses and CIDR ranges, IPv4 and IPv6, at their exact edges", () => {
      const value = "127.0.0.1, 10.0.0.0/8,192.168.1.7/32,fd00::/8,2001:db8::5";
      const inside = ["127.0.0.1", "10.0.0.0", "10.255.255.255", "::ffff:10.1.2.3", "192.168.1.7", "fd00::1", "fdff:ffff::9", "2001:db8::5"];
      const outside = ["127.0.0.2", "9.255.255.255", "11.0.0.0", "192.168.1.6", "192.168.1.8", "fc00::1", "fe00::1", "2001:db8::6", "::ffff:11.0.0.0"];
      for (const address of inside) expect([address, trusts(value, address)]).toEqual([address, true]);
      for (const address of outside) expect([address, trusts(value, address)]).toEqual([address, false]);
    });

    it("reads /0 ranges as their whole family only", () => {
      expect([trusts("0.0.0.0/0", "203.0.113.9"), trusts("0.0.0.0/0", "2001:db8::1")]).toEqual([true, false]);
      expect([trusts("::/0", "2001:db8::1"), trusts("::/0", "203.0.113.9")]).toEqual([true, true]);
    });

    it.each([
      "yes", "true", "on", "2", " 1", "localhost", "10.0.0.0/33", "10.0.0.0/8/8", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/08",
      "10.1.0.0/8", "fd00::/129", "fd00::1/8", "10.0.0.256", "10.0.0", "127.0.0.01", "fe80::1%eth0", "::1,", ",::1", "10.0.0.1,,10.0.0.2",
      "10.0.0.0/8;192.168.0.0/16", "1,10.0.0.1",
    ])("refuses %p with a one-line ConfigError that names the variable", (value) => {
      const error = loadError({}, { LINKSHELF_TRUST_PROXY: value });
      expect(error.message).toContain("LINKSHELF_TRUST_PROXY");
      expect(error.message).not.toContain("\n");
    });
  });
});

describe("databasePath", () => {
  const made: string[] = [];
  afterEach(() => {
    for (const path of made.splice(0)) {
      chmodSync(path, 0o700);
      rmSync(path, { recursive: true, force: true });
    }
  });
  function scratch(): string {
    const dir = testDir("config");
    made.push(dir);
    return dir;
  }

  it("creates the data directory, parents included, and names linkshelf.db in it", () => {
    const dataDir = join(scratch(), "a", "b", "data");
    expect(databasePath(dataDir)).toBe(join(dataDir, "linkshelf.db"));
    expect(statSync(dataDir).isDirectory()).toBe(true);
    expect(existsSync(join(dataDir, "linkshelf.db"))).toBe(false);
  });

  it("accepts a directory that already exists", () => {
    const dataDir = scratch();
    expect(databasePath(dataDir)).toBe(join(dataDir, "linkshelf.db"));
  });

  it("refuses a directory that can never be created (its parent is a file) with a one-line ConfigError naming it", () => {
    const file = join(scratch(), "not-a-dir");
    writeFileSync(file, "");
    const dataDir = join(file, "sub");
    let error: unknown;
    try {
      databasePath(dataDir);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain(dataDir);
    expect((error as ConfigError).message).not.toContain("\n");
  });

  it("refuses a path that is a file", () => {
    const file = join(scratch(), "linkshelf.db");
    writeFileSync(file, "");
    expect(() => databasePath(file)).toThrow(ConfigError);
  });

  // Root passes every write-permission check, so a read-only directory proves nothing there.
  it.skipIf(isRoot)("refuses a directory the server cannot write to", () => {
    const dataDir = scratch();
    chmodSync(dataDir, 0o500);
    expect(() => databasePath(dataDir)).toThrow(ConfigError);
  });
});

describe("scheduled backups", () => {
  const backupError = (env: Record<string, string>) => loadError({}, env).message;

  it("are off when LINKSHELF_BACKUP_EVERY is unset or empty", () => {
    expect(loadConfig({}, {}).backup).toBeNull();
    expect(loadConfig({}, { LINKSHELF_BACKUP_EVERY: "" }).backup).toBeNull();
  });

  it.each([
    ["1s", 1000], ["5s", 5000], ["30m", 1_800_000], ["24h", 86_400_000], ["7d", 604_800_000], ["366d", 366 * 86_400_000],
  ])("reads the period %p", (every, ms) => {
    const backup = loadConfig({}, { LINKSHELF_BACKUP_EVERY: every, LINKSHELF_BACKUP_DIR: "backups" }).backup;
    expect(backup).toEqual({ dir: resolve("backups"), everyMs: ms as number, keep: 7 });
  });

  it.each(["0s", "0h", "367d", "24", "h", "1.5h", "-1h", " 24h", "24H", "24 h", "1w", "99999999999s"])("refuses the period %p in one line naming the setting", (every) => {
    const message = backupError({ LINKSHELF_BACKUP_EVERY: every, LINKSHELF_BACKUP_DIR: "/b" });
    expect(message).toContain("LINKSHELF_BACKUP_EVERY");
    expect(message).not.toContain("\n");
  });

  it.each([["1", 1], ["7", 7], ["365", 365]])("keeps %p backups when LINKSHELF_BACKUP_KEEP says so", (keep, count) => {
    expect(loadConfig({}, { LINKSHELF_BACKUP_EVERY: "1h", LINKSHELF_BACKUP_DIR: "/b", LINKSHELF_BACKUP_KEEP: keep }).backup?.keep).toBe(count as number);
  });

  it.each(["0", "-1", "x", "1.5", "2 ", "9999999"])("refuses LINKSHELF_BACKUP_KEEP %p", (keep) => {
    expect(backupError({ LINKSHELF_BACKUP_EVERY: "1h", LINKSHELF_BACKUP_DIR: "/b", LINKSHELF_BACKUP_KEEP: keep })).toContain("LINKSHELF_BACKUP_KEEP");
  });

  it("refuses a period without a folder, and a folder or a count without a period", () => {
    expect(backupError({ LINKSHELF_BACKUP_EVERY: "1h" })).toContain("LINKSHELF_BACKUP_DIR");
    expect(backupError({ LINKSHELF_BACKUP_EVERY: "1h", LINKSHELF_BACKUP_DIR: " " })).toContain("LINKSHELF_BACKUP_DIR");
    expect(backupError({ LINKSHELF_BACKUP_DIR: "/b" })).toContain("LINKSHELF_BACKUP_EVERY");
    expect(backupError({ LINKSHELF_BACKUP_KEEP: "3" })).toContain("LINKSHELF_BACKUP_EVERY");
  });
});
