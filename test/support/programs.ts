/**
 * Programs some tests need that `npm install` cannot provide (browsers, qemu, podman,
 * systemd-analyze). One rule for all of them: when a program is absent, its tests are skipped
 * with one line on stderr naming the Debian package to install, except under CI (the `CI`
 * environment variable set), where a missing program is a failing test.
 */
import { test } from "bun:test";
import { existsSync } from "node:fs";

export interface Program {
  /** What the skip message calls it. */
  name: string;
  /** Where the tests run it from. */
  path: string;
  /** The package that installs it on Debian. */
  debianPackage: string;
}

/**
 * program describes one; `override` names an environment variable that replaces the path, so a
 * test run can pretend the program is absent (`LINKSHELF_TEST_CHROMIUM=/nonexistent`).
 */
function program(name: string, path: string, debianPackage: string, override: string): Program {
  return { name, path: process.env[override] || path, debianPackage };
}

export const CHROMIUM = program("Chromium", "/usr/bin/chromium", "chromium", "LINKSHELF_TEST_CHROMIUM");
export const FIREFOX = program("Firefox ESR", "/usr/bin/firefox-esr", "firefox-esr", "LINKSHELF_TEST_FIREFOX");
export const QEMU_AARCH64 = program("qemu for arm64", "/usr/bin/qemu-aarch64-static", "qemu-user-static", "LINKSHELF_TEST_QEMU");
/** The arm64 C library and loader that `qemu-aarch64-static -L /` runs an arm64 executable with. */
export const LIBC_ARM64 = program("the arm64 C library", "/lib/ld-linux-aarch64.so.1", "libc6:arm64", "LINKSHELF_TEST_LIBC_ARM64");
export const PODMAN = program("podman", "/usr/bin/podman", "podman", "LINKSHELF_TEST_PODMAN");
export const RUNC = program("runc", "/usr/sbin/runc", "runc", "LINKSHELF_TEST_RUNC");
export const CADDY = program("Caddy", "/usr/bin/caddy", "caddy", "LINKSHELF_TEST_CADDY");
export const NGINX = program("nginx", "/usr/sbin/nginx", "nginx-light", "LINKSHELF_TEST_NGINX");
export const FAIL2BAN = program("fail2ban-regex", "/usr/bin/fail2ban-regex", "fail2ban", "LINKSHELF_TEST_FAIL2BAN");
export const CURL = program("curl", "/usr/bin/curl", "curl", "LINKSHELF_TEST_CURL");
export const OPENSSL = program("openssl", "/usr/bin/openssl", "openssl", "LINKSHELF_TEST_OPENSSL");
export const SYSTEMD_ANALYZE = program("systemd-analyze", "/usr/bin/systemd-analyze", "systemd", "LINKSHELF_TEST_SYSTEMD_ANALYZE");

/** Programs already reported missing in this run: one line each, however many files need them. */
const reported = new Set<string>();

/**
 * requireProgram answers whether `program` is installed; the caller skips its tests when it is
 * not (`describe.skipIf(!present)`). Absent without CI: one line on stderr per program and run.
 * Absent under CI: a failing test in the calling file says what to install.
 */
export function requireProgram(program: Program): boolean {
  if (existsSync(program.path)) return true;
  const advice = `${program.path} is absent (apt-get install ${program.debianPackage})`;
  if (process.env.CI) {
    test(`${program.name} is installed`, () => {
      throw new Error(`${advice}; CI needs every test to run`);
    });
  } else if (!reported.has(program.name)) {
    reported.add(program.name);
    console.warn(`skipped: the tests that need ${program.name}: ${advice}`);
  }
  return false;
}
