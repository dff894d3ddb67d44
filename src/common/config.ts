import { accessSync, chmodSync, constants, mkdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseIpRange, type IpRange } from "./ip";

export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** null when `LINKSHELF_RATE_LIMIT=off`. */
  rateLimit: RateLimit | null;
  /**
   * The reverse proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` count
   * (`LINKSHELF_TRUST_PROXY`); empty: none, the socket's peer is the client.
   */
  trustedProxies: IpRange[];
  faviconAllowPrivate: boolean;
  /** Whether saved links' pages are fetched in the background for their text (`LINKSHELF_FETCH_CONTENT`). */
  fetchContent: boolean;
  /** Whether page fetching reaches loopback and LAN addresses (`LINKSHELF_FETCH_PRIVATE`, or the older `LINKSHELF_FAVICON_ALLOW_PRIVATE`). */
  fetchPrivate: boolean;
  /** The background link checker (`LINKSHELF_LINK_CHECK`, `LINKSHELF_LINK_CHECK_ALLOW_PRIVATE`, `LINKSHELF_LINK_CHECK_CONFIRM`). */
  linkCheck: LinkCheckConfig;
  /** What the server logs beyond start, stop and errors (`LINKSHELF_LOG`). */
  log: LogOptions;
  /** Scheduled backups while serving; null when `LINKSHELF_BACKUP_EVERY` is unset. */
  backup: BackupSchedule | null;
  /** How many days a deleted link or collection stays in the trash (`LINKSHELF_TRASH_DAYS`); 0 deletes at once. */
  trashDays: number;
  /** The bytes of page copies each user may keep, as stored (compressed): `LINKSHELF_COPY_QUOTA`; 0 keeps none. */
  copyQuota: number;
}

export interface LinkCheckConfig {
  /** How often each link is checked; null when `LINKSHELF_LINK_CHECK=off` (no background checks). */
  periodMs: number | null;
  /** Whether links to loopback and private (LAN) addresses are checked too. */
  allowPrivate: boolean;
  /** A link is broken after this many failures in a row... */
  confirmFailures: number;
  /** ...that span at least this long, first to last. */
  confirmSpanMs: number;
}

export interface LogOptions {
  /** One line per answered request (`LINKSHELF_LOG=access`). */
  access: boolean;
}

export interface BackupSchedule {
  /** Absolute path of the folder the backups go to. */
  dir: string;
  everyMs: number;
  /** How many of the newest backups stay; older ones are removed. */
  keep: number;
}

/** Flags given on the command line; each wins over its environment variable. */
export interface ConfigFlags {
  port?: string;
  host?: string;
  "data-dir"?: string;
}

/** A configuration the server cannot start with; main prints its message and exits 2. */
export class ConfigError extends Error {}

export const DEFAULTS = { port: 3000, host: "0.0.0.0", dataDir: "./data", rateLimit: "300/60", backupKeep: 7, linkCheck: "7d", linkCheckConfirm: "3/7d", trashDays: 30, copyQuota: "2GiB" } as const;

/** The longest a deleted item may stay in the trash, in days: ten years. */
export const MAX_TRASH_DAYS = 3650;

/** One environment setting as `--help`, the docs and the compose file name it. */
export interface Setting {
  name: string;
  /** The form of its value, as help shows it. */
  value: string;
  /** What it does and its default, in a few words. */
  help: string;
}

/**
 * Every environment setting that loadConfig reads, in the order `--help` lists them. A test keeps
 * this list, loadConfig, `deploy/compose.yaml`'s comments and the operations guide in step.
 */
export const SETTINGS: readonly Setting[] = [
  { name: "LINKSHELF_DATA_DIR", value: "DIR", help: `data directory (--data-dir; default ${DEFAULTS.dataDir})` },
  { name: "LINKSHELF_PORT", value: "N", help: `listening port (--port; default ${DEFAULTS.port})` },
  { name: "LINKSHELF_HOST", value: "ADDR", help: `listening address (--host; default ${DEFAULTS.host})` },
  { name: "LINKSHELF_RATE_LIMIT", value: "N/S|off", help: `requests per key and window of S seconds (default ${DEFAULTS.rateLimit})` },
  { name: "LINKSHELF_TRUST_PROXY", value: "1|LIST", help: "proxies whose X-Forwarded-For/-Proto count: 1 (loopback) or addresses/CIDRs" },
  { name: "LINKSHELF_FETCH_CONTENT", value: "on|off", help: "fetch saved links' pages for their text, for search (default on)" },
  { name: "LINKSHELF_FETCH_PRIVATE", value: "1", help: "also fetch pages on loopback and LAN addresses (default 0)" },
  { name: "LINKSHELF_FAVICON_ALLOW_PRIVATE", value: "1", help: "the icon proxy (and, an older name, page fetching) reaches LAN addresses" },
  { name: "LINKSHELF_LINK_CHECK", value: "PERIOD|off", help: `how often each link is checked for health (default ${DEFAULTS.linkCheck})` },
  { name: "LINKSHELF_LINK_CHECK_CONFIRM", value: "N/PERIOD", help: `a link is broken after N failures in a row over PERIOD (default ${DEFAULTS.linkCheckConfirm})` },
  { name: "LINKSHELF_LINK_CHECK_ALLOW_PRIVATE", value: "1", help: "also check links on loopback and LAN addresses (default 0)" },
  { name: "LINKSHELF_TRASH_DAYS", value: "N", help: `days a deleted link or collection stays in the trash; 0 deletes at once (default ${DEFAULTS.trashDays})` },
  { name: "LINKSHELF_COPY_QUOTA", value: "SIZE", help: `page copies each user may keep, compressed, such as 500MiB; 0: none (default ${DEFAULTS.copyQuota})` },
  { name: "LINKSHELF_LOG", value: "access|off", help: "access: one log line per request (default off)" },
  { name: "LINKSHELF_BACKUP_EVERY", value: "PERIOD", help: "scheduled backups while serving, such as 24h (default off)" },
  { name: "LINKSHELF_BACKUP_DIR", value: "DIR", help: "the folder for scheduled backups (required with LINKSHELF_BACKUP_EVERY)" },
  { name: "LINKSHELF_BACKUP_KEEP", value: "N", help: `how many of the newest backups stay (default ${DEFAULTS.backupKeep})` },
];

/** loadConfig resolves flag > environment > default for every setting and checks each. */
export function loadConfig(flags: ConfigFlags, env: Record<string, string | undefined>): Config {
  return {
    port: parsePort(flags.port ?? env.LINKSHELF_PORT ?? String(DEFAULTS.port)),
    host: parseHost(flags.host ?? env.LINKSHELF_HOST ?? DEFAULTS.host),
    dataDir: resolve(flags["data-dir"] ?? env.LINKSHELF_DATA_DIR ?? DEFAULTS.dataDir),
    rateLimit: parseRateLimit(env.LINKSHELF_RATE_LIMIT ?? DEFAULTS.rateLimit),
    trustedProxies: parseTrustedProxies(env.LINKSHELF_TRUST_PROXY),
    faviconAllowPrivate: parseSwitch("LINKSHELF_FAVICON_ALLOW_PRIVATE", env.LINKSHELF_FAVICON_ALLOW_PRIVATE),
    fetchContent: parseOnOff("LINKSHELF_FETCH_CONTENT", env.LINKSHELF_FETCH_CONTENT),
    // Page fetching had no switch of its own at first and followed the icon proxy's: that name still counts.
    fetchPrivate: parseSwitch("LINKSHELF_FETCH_PRIVATE", env.LINKSHELF_FETCH_PRIVATE) || parseSwitch("LINKSHELF_FAVICON_ALLOW_PRIVATE", env.LINKSHELF_FAVICON_ALLOW_PRIVATE),
    linkCheck: {
      periodMs: env.LINKSHELF_LINK_CHECK === "off" ? null : parseDuration("LINKSHELF_LINK_CHECK", env.LINKSHELF_LINK_CHECK || DEFAULTS.linkCheck),
      allowPrivate: parseSwitch("LINKSHELF_LINK_CHECK_ALLOW_PRIVATE", env.LINKSHELF_LINK_CHECK_ALLOW_PRIVATE),
      ...parseConfirm(env.LINKSHELF_LINK_CHECK_CONFIRM || DEFAULTS.linkCheckConfirm),
    },
    log: parseLog(env.LINKSHELF_LOG),
    backup: parseBackup(env),
    trashDays: parseTrashDays(env.LINKSHELF_TRASH_DAYS),
    copyQuota: parseSize("LINKSHELF_COPY_QUOTA", env.LINKSHELF_COPY_QUOTA || DEFAULTS.copyQuota),
  };
}

const SIZE_UNITS: Record<string, number> = { "": 1, k: 1024, kib: 1024, m: 1024 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gib: 1024 ** 3, t: 1024 ** 4, tib: 1024 ** 4 };
/** The largest size a setting takes: 1 PiB. */
const MAX_SIZE = 1024 ** 5;

/** parseSize reads a size in bytes: a whole number and an optional binary unit (`K`/`KiB`, `M`/`MiB`, `G`/`GiB`, `T`/`TiB`; any case). */
export function parseSize(name: string, value: string): number {
  const match = /^(\d{1,16})\s*([a-z]*)$/i.exec(value.trim());
  const unit = match ? SIZE_UNITS[match[2]!.toLowerCase()] : undefined;
  const bytes = match && unit !== undefined ? Number(match[1]) * unit : NaN;
  if (!(bytes <= MAX_SIZE)) throw new ConfigError(`invalid ${name} "${value}": expected a size such as 2GiB, 500MiB or 0`);
  return bytes;
}

/** parseTrashDays reads LINKSHELF_TRASH_DAYS: a whole number of days from 0 (no trash) to MAX_TRASH_DAYS. */
function parseTrashDays(value: string | undefined): number {
  if (value === undefined || value === "") return DEFAULTS.trashDays;
  const days = /^\d{1,4}$/.test(value) ? Number(value) : NaN;
  if (!(days <= MAX_TRASH_DAYS)) throw new ConfigError(`invalid LINKSHELF_TRASH_DAYS "${value}": expected a whole number of days from 0 to ${MAX_TRASH_DAYS}`);
  return days;
}

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** The longest period: a year. */
const MAX_PERIOD_MS = 366 * UNIT_MS.d;

/** parseDuration reads a period such as `24h`, `30m`, `7d` or `5s`: a positive whole number and one unit. */
export function parseDuration(name: string, value: string): number {
  const match = /^(\d{1,9})([smhd])$/.exec(value);
  const ms = match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : NaN;
  if (!(ms >= 1000 && ms <= MAX_PERIOD_MS)) {
    throw new ConfigError(`invalid ${name} "${value}": expected a period such as 24h, 30m or 7d (s, m, h or d; at least 1s, at most 366d)`);
  }
  return ms;
}

/** parseConfirm reads `LINKSHELF_LINK_CHECK_CONFIRM`: `<failures>/<period>` such as `3/7d` (1 to 100 failures; a period of 0 is written `0s`). */
export function parseConfirm(value: string): { confirmFailures: number; confirmSpanMs: number } {
  const match = /^(\d{1,3})\/(.+)$/.exec(value);
  const failures = Number(match?.[1]);
  if (!match || !(failures >= 1 && failures <= 100)) {
    throw new ConfigError(`invalid LINKSHELF_LINK_CHECK_CONFIRM "${value}": expected <failures>/<period> such as 3/7d (1 to 100 failures)`);
  }
  return { confirmFailures: failures, confirmSpanMs: match[2] === "0s" ? 0 : parseDuration("LINKSHELF_LINK_CHECK_CONFIRM", match[2]!) };
}

/**
 * parseBackup reads the scheduled backups: `LINKSHELF_BACKUP_EVERY` switches them on and needs
 * `LINKSHELF_BACKUP_DIR`; a folder or a count without a period is a mistake, not "off".
 */
function parseBackup(env: Record<string, string | undefined>): BackupSchedule | null {
  const every = env.LINKSHELF_BACKUP_EVERY ?? "";
  const dir = env.LINKSHELF_BACKUP_DIR ?? "";
  const keep = env.LINKSHELF_BACKUP_KEEP ?? "";
  if (every === "") {
    if (dir !== "" || keep !== "") {
      throw new ConfigError(`${dir !== "" ? "LINKSHELF_BACKUP_DIR" : "LINKSHELF_BACKUP_KEEP"} is set but LINKSHELF_BACKUP_EVERY is not: set the period too, such as 24h`);
    }
    return null;
  }
  const everyMs = parseDuration("LINKSHELF_BACKUP_EVERY", every);
  if (dir.trim() === "") throw new ConfigError("LINKSHELF_BACKUP_EVERY is set but LINKSHELF_BACKUP_DIR is not: name the folder for the backups");
  const count = /^\d{1,6}$/.test(keep) ? Number(keep) : keep === "" ? DEFAULTS.backupKeep : NaN;
  if (!(count >= 1)) throw new ConfigError(`invalid LINKSHELF_BACKUP_KEEP "${keep}": expected a whole number of at least 1`);
  return { dir: resolve(dir), everyMs, keep: count };
}

function parsePort(value: string): number {
  const port = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new ConfigError(`invalid port "${value}": expected a number from 0 to 65535`);
  return port;
}

function parseHost(value: string): string {
  if (value.trim() === "") throw new ConfigError("invalid host: it is empty");
  return value;
}

/** parseRateLimit reads `<requests>/<seconds>` (both positive whole numbers) or `off`. */
export function parseRateLimit(value: string): RateLimit | null {
  if (value === "off") return null;
  const match = /^(\d{1,9})\/(\d{1,9})$/.exec(value);
  const limit = Number(match?.[1]);
  const windowSeconds = Number(match?.[2]);
  if (!match || limit < 1 || windowSeconds < 1) {
    throw new ConfigError(`invalid LINKSHELF_RATE_LIMIT "${value}": expected <requests>/<seconds> such as 300/60, or off`);
  }
  return { limit, windowSeconds };
}

/** parseLog reads `access` (an access log line per request), or `off` / empty (none, the default). */
export function parseLog(value: string | undefined): LogOptions {
  if (value === undefined || value === "" || value === "off") return { access: false };
  if (value === "access") return { access: true };
  throw new ConfigError(`invalid LINKSHELF_LOG "${value}": expected access or off`);
}

/** What `LINKSHELF_TRUST_PROXY=1` names: a proxy on this machine (IPv4 loopback, mapped or not, and `::1`). */
export const LOOPBACK_PROXIES = "127.0.0.0/8,::1";

/**
 * parseTrustedProxies reads `LINKSHELF_TRUST_PROXY`: unset, empty or `0` trusts no proxy; `1`
 * trusts loopback; otherwise a comma list of addresses and CIDR ranges, IPv4 or IPv6
 * (`127.0.0.1,10.0.0.0/8,fd00::/8`; spaces around entries are ignored).
 */
export function parseTrustedProxies(value: string | undefined): IpRange[] {
  if (value === undefined || value === "" || value === "0") return [];
  const entries = (value === "1" ? LOOPBACK_PROXIES : value).split(",").map((entry) => entry.trim());
  const ranges = entries.map(parseIpRange);
  const bad = entries.find((_, i) => ranges[i] === null);
  if (bad !== undefined) {
    throw new ConfigError(
      `invalid LINKSHELF_TRUST_PROXY "${value}": "${bad}" is not an address or CIDR range; `
        + "expected 1, 0, or a comma list such as 127.0.0.1,10.0.0.0/8,fd00::/8",
    );
  }
  return ranges as IpRange[];
}

function parseSwitch(name: string, value: string | undefined): boolean {
  if (value === undefined || value === "" || value === "0") return false;
  if (value === "1") return true;
  throw new ConfigError(`invalid ${name} "${value}": expected 1 or 0`);
}

/** parseOnOff reads a setting that is `on` (also when unset or empty) or `off`. */
function parseOnOff(name: string, value: string | undefined): boolean {
  if (value === undefined || value === "" || value === "on") return true;
  if (value === "off") return false;
  throw new ConfigError(`invalid ${name} "${value}": expected on or off`);
}

/** tightenDirectory sets a directory to 0700, unless it is another user's (EPERM): its owner decides its mode. */
function tightenDirectory(dir: string): void {
  try {
    chmodSync(dir, 0o700);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") throw error;
  }
}

/**
 * databasePath creates the data directory when missing (mode 0700: only the server's own user
 * may read the database and its backups), takes group and other access away from an existing
 * one, checks it is writable, and names the file.
 */
export function databasePath(dataDir: string): string {
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    if ((statSync(dataDir).mode & 0o077) !== 0) tightenDirectory(dataDir);
    accessSync(dataDir, constants.W_OK);
  } catch {
    throw new ConfigError(`data directory ${dataDir} is not writable`);
  }
  return join(dataDir, "linkshelf.db");
}
