import { existsSync } from "node:fs";
import { basename } from "node:path";
import { checkTokenName } from "./common/token-secrets";
import { Shelf } from "./shelf/shelf";
import { revokeAnyToken } from "./shelf/tokens";
import { ConfigError, databasePath, loadConfig, SETTINGS, type Config } from "./common/config";
import { writeBackup } from "./db/backup";
import { openDatabase, type Db } from "./db/client";
import { DataDirBusy, lockDataDir } from "./db/lock";
import { restoreDatabase, RestoreRefused } from "./db/restore";
import { DatabaseRefused } from "./db/schema-check";
import type { ImportReport } from "./bookmarks/plan";
import { unreadDatesText } from "./bookmarks/document";
import { FORMAT_NAMES, FORMATS } from "./bookmarks/formats";
import { AppError, ValidationFailed } from "./common/errors";
import { checkLiveness } from "./liveness-probe";
import { iso } from "./common/timestamps";
import { Rules } from "./common/rules";
import { serve } from "./server";
import { buildVersion } from "./common/version";
import { countOf, formatNumber } from "./common/format";
import { createUser, findUserByEmail, setPassword } from "./users/service";

/** wrapped sets a command's description in the usage's right column, its lines at most 97 characters long. */
function wrapped(text: string, indent = 37, width = 97): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && indent + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return lines.map((one) => `${" ".repeat(indent)}${one}`).join("\n");
}

export const USAGE = `Usage: linkshelf [command] [options]

Commands:
  serve                              run the server (the default)
  healthcheck                        exit 0 when the server on --host/--port answers /healthz
                                     with 200, else print why and exit 1 (for container probes)
  user create --email E --name N     create a user and their Inbox
  user password --email E            set a new password and end the user's sessions
  token create --email E [--name N]  print a new API token (default name CLI)
  token list --email E               list a user's tokens (never the tokens themselves)
  token revoke --id N                revoke a token
  backup FILE                        write a consistent copy of the database to FILE
  restore FILE                       put a copy of FILE (a backup) in place of the database;
                                     refused while a server uses the data directory
  import FILE --email E [--dry-run] [--into ID] [--keep-public]
${wrapped(`import a file of one of these formats, recognised by its content (see docs/import.md): ${FORMATS.map((row) => row.name).join(", ")}; folders and tags become private collections, a public one is never added to; --into puts the file's collections inside private collection ID; --keep-public keeps a linkshelf JSON file's public collections public; --dry-run reports what would happen and stores nothing`)}
  export --email E [--format json] [--with-text] [--with-copies]
                                     write the user's links as a Netscape bookmark file on stdout,
                                     or as linkshelf JSON (everything, with --with-text the saved
                                     page texts too, with --with-copies the page copies too;
                                     importing that file restores them)

Passwords are read from the first line of stdin when it is not a terminal,
otherwise prompted for twice without echo (at least 8 characters).

Options:
  --data-dir DIR   data directory (LINKSHELF_DATA_DIR, default ./data)
  --port N         listening port, serve and healthcheck (LINKSHELF_PORT, default 3000)
  --host ADDR      listening address, serve and healthcheck (LINKSHELF_HOST, default 0.0.0.0)
  --version        print the version
  --help           print this help

Settings, from the environment (PERIOD: a whole number and s, m, h or d, such as 24h):
${settingsHelp()}
`;

/** The settings' part of the help: one line each, descriptions aligned. */
function settingsHelp(): string {
  const width = Math.max(...SETTINGS.map((setting) => setting.name.length + 1 + setting.value.length));
  return SETTINGS.map((setting) => `  ${`${setting.name}=${setting.value}`.padEnd(width)}  ${setting.help}`).join("\n");
}

/** Wrong words on the command line: usage on stderr, exit 2. */
class UsageError extends Error {}
/** A command that could not do its job: one line on stderr, exit 1. */
class CommandError extends Error {}

type Flag = "port" | "host" | "data-dir" | "email" | "name" | "id" | "dry-run" | "into" | "keep-public" | "format" | "with-text" | "with-copies";
/** A flag's value; a switch that was given (`--dry-run`) is "". */
type Flags = Partial<Record<Flag, string>>;

interface Command {
  flags: Flag[];
  required: Flag[];
  /** How many words follow the command's name (backup's FILE). */
  args: number;
  run(config: Config, flags: Flags, args: string[], io: Io): Promise<number>;
}

interface Io {
  env: Record<string, string | undefined>;
  out(line: string): void;
  /** Text as is, without a line break added. */
  write(text: string): void;
  err(line: string): void;
}

const COMMANDS: Record<string, Command> = {
  serve: { flags: ["port", "host", "data-dir"], required: [], args: 0, run: (config, _f, _a, io) => serve(config, io.err) },
  healthcheck: {
    flags: ["port", "host"], required: [], args: 0,
    run: async (config, _f, _a, io) => {
      const problem = await checkLiveness(config);
      if (problem === null) return 0;
      io.err(`linkshelf: unhealthy: ${problem}`);
      return 1;
    },
  },
  "user create": {
    flags: ["email", "name", "data-dir"], required: ["email", "name"], args: 0,
    run: (config, flags, _a, io) => withDb(config, async (db) => {
      const password = await readNewPassword();
      const user = await createUser(db, { email: flags.email!, name: flags.name!, password }, Date.now(), { patient: true });
      io.err(`created user ${user.email} (id ${user.id}) with an Inbox`);
      return 0;
    }),
  },
  "user password": {
    flags: ["email", "data-dir"], required: ["email"], args: 0,
    run: (config, flags, _a, io) => withDb(config, async (db) => {
      const user = requireUser(db, flags.email!);
      await setPassword(db, user.id, await readNewPassword(), { patient: true });
      io.err(`password changed for ${user.email}; their sessions have ended`);
      return 0;
    }),
  },
  "token create": {
    flags: ["email", "name", "data-dir"], required: ["email"], args: 0,
    run: (config, flags, _a, io) => withDb(config, async (db) => {
      if ((flags.name ?? "CLI").trim() === "") throw new UsageError("--name must not be empty");
      const rules = new Rules();
      const name = checkTokenName(rules, flags.name ?? "CLI");
      rules.check();
      io.out(requireShelf(db, flags.email!, config).tokens.create(name, Date.now()).token);
      return 0;
    }),
  },
  "token list": {
    flags: ["email", "data-dir"], required: ["email"], args: 0,
    run: (config, flags, _a, io) => withDb(config, async (db) => {
      const shelf = requireShelf(db, flags.email!, config);
      io.out(["id", "name", "createdAt", "lastUsedAt"].join("\t"));
      for (const token of shelf.tokens.list()) {
        io.out([token.id, token.name, iso(token.createdAt), token.lastUsedAt === null ? "never" : iso(token.lastUsedAt)].join("\t"));
      }
      return 0;
    }),
  },
  "token revoke": {
    flags: ["id", "data-dir"], required: ["id"], args: 0,
    run: (config, flags, _a, io) => withDb(config, async (db) => {
      const id = /^[1-9][0-9]{0,15}$/.test(flags.id!) ? Number(flags.id) : NaN;
      if (!Number.isSafeInteger(id)) throw new UsageError(`--id must be a token id, not "${flags.id}"`);
      if (!revokeAnyToken(db, id)) throw new CommandError(`no token has id ${id}`);
      io.err(`token ${id} revoked`);
      return 0;
    }),
  },
  import: {
    flags: ["email", "dry-run", "into", "keep-public", "data-dir"], required: ["email"], args: 1,
    run: (config, flags, [file], io) => withDb(config, async (db) => {
      const shelf = requireShelf(db, flags.email!, config);
      const bytes = await Bun.file(file!).bytes().catch((error: Error) => {
        throw new CommandError(`cannot read ${file}: ${error.message}`);
      });
      // Loaded on demand: the parser is not needed to serve, and start-up time counts.
      const { readImportFile } = await import("./bookmarks/formats");
      const { importBookmarks } = await import("./bookmarks/plan");
      const dryRun = flags["dry-run"] !== undefined;
      const under = flags.into === undefined ? null : Number(flags.into);
      if (under !== null && !Number.isSafeInteger(under)) throw new UsageError(`--into must be a collection id, not "${flags.into}"`);
      const now = Date.now();
      const report = await importBookmarks(shelf, await readImportFile(bytes, now), now, {
        dryRun, under, keepPublic: flags["keep-public"] !== undefined, record: { source: "cli", fileName: basename(file!) },
      }).catch((error: unknown) => {
        if (error instanceof ValidationFailed && error.errors?.[0]?.path === "/under") {
          throw new CommandError(`--into ${under} is not one of the user's private collections (the Inbox is not one either); nothing was imported`);
        }
        // A file with nothing to import: the page's reason, on one line; nothing stored, no import recorded.
        if (error instanceof ValidationFailed && error.errors?.[0]?.path === "/file") throw new CommandError(error.errors[0].message);
        throw error;
      });
      for (const line of describeImport(report, dryRun)) io.out(line);
      if (report.importId !== undefined) {
        io.out(`import ${report.importId} recorded: undo it on the account page, or with DELETE /api/v1/imports/${report.importId}`);
      }
      return 0;
    }),
  },
  export: {
    flags: ["email", "format", "with-text", "with-copies", "data-dir"], required: ["email"], args: 0,
    run: (config, flags, _a, io) => withDb(config, async (db) => {
      const shelf = requireShelf(db, flags.email!, config);
      const format = flags.format ?? "html";
      if (format !== "html" && format !== "json") throw new UsageError(`--format must be html or json, not "${format}"`);
      if (format === "json") {
        const { exportJson } = await import("./bookmarks/linkshelf-json");
        io.write(`${JSON.stringify(exportJson(shelf, Date.now(), { withText: flags["with-text"] !== undefined, withCopies: flags["with-copies"] !== undefined }), null, 1)}\n`);
        return 0;
      }
      const { exportBookmarks } = await import("./bookmarks/export");
      io.write(exportBookmarks(shelf));
      return 0;
    }),
  },
  backup: {
    flags: ["data-dir"], required: [], args: 1,
    run: (config, _f, [file], io) => withDb(config, async (db) => {
      if (existsSync(file!)) throw new CommandError(`${file} exists already; choose a new file name`);
      writeBackup(db.$client, file!);
      io.err(`database copied to ${file}`);
      return 0;
    }),
  },
  restore: {
    flags: ["data-dir"], required: [], args: 1,
    run: async (config, _f, [file], io) => {
      const dbPath = databasePath(config.dataDir);
      const lock = lockDataDir(config.dataDir, "restore");
      try {
        const { kept, idsAbove } = restoreDatabase(file!, dbPath, Date.now());
        const replaced = !kept ? ""
          : idsAbove ? `; the database it replaced is kept as ${kept}, and new ids start above every id it issued`
          : `; the database it replaced is kept as ${kept} (its ids could not be read: new ids may repeat ones it issued after the backup)`;
        io.err(`linkshelf: restored ${file} into ${dbPath}${replaced}; the next start applies any pending migrations`);
        return 0;
      } finally {
        lock.release();
      }
    },
  },
};

/** runCli carries out one command line and resolves with the process exit code. */
export async function runCli(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  const io: Io = { env, out: (line) => console.log(line), write: (text) => process.stdout.write(text), err: (line) => console.error(line) };
  try {
    const { command, flags, args } = parseCommandLine(argv);
    if (command === "--help") {
      io.out(USAGE);
      return 0;
    }
    if (command === "--version") {
      io.out(buildVersion());
      return 0;
    }
    return await COMMANDS[command]!.run(loadConfig(flags, env), flags, args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`linkshelf: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof ConfigError) {
      io.err(`linkshelf: ${error.message}`);
      return 2;
    }
    if (error instanceof CommandError || error instanceof DataDirBusy || error instanceof RestoreRefused || error instanceof DatabaseRefused) {
      io.err(`linkshelf: ${error.message}`);
      return 1;
    }
    if (error instanceof AppError) {
      const details = error.errors?.map((e) => `${e.path.slice(1)}: ${e.message}`).join("; ");
      io.err(`linkshelf: ${error.message}${details ? ` ${details}` : ""}`);
      return 1;
    }
    throw error;
  }
}

function parseCommandLine(argv: string[]): { command: string; flags: Flags; args: string[] } {
  const { values, positionals } = readWords(argv);
  if (values.help) return { command: "--help", flags: {}, args: [] };
  if (values.version) return { command: "--version", flags: {}, args: [] };

  const words = positionals.length === 0 ? ["serve"] : positionals;
  const name = COMMANDS[words[0]!] ? words[0]! : `${words[0]} ${words[1] ?? ""}`.trim();
  const command = COMMANDS[name];
  if (!command) throw new UsageError(`unknown command "${words.join(" ")}"`);
  const args = words.slice(name.split(" ").length);
  if (args.length !== command.args) {
    throw new UsageError(command.args === 0 ? `unexpected argument "${args[0]}"` : `${name} needs ${countOf(command.args, "argument")}`);
  }
  const flags: Flags = {};
  for (const [flag, value] of Object.entries(values)) {
    if (!command.flags.includes(flag as Flag)) throw new UsageError(`${name} does not take --${flag}`);
    flags[flag as Flag] = value === true ? "" : (value as string);
  }
  for (const flag of command.required) {
    if (flags[flag] === undefined) throw new UsageError(`${name} needs --${flag}`);
  }
  return { command: name, flags, args };
}

const STRING_FLAGS = new Set(["port", "host", "data-dir", "email", "name", "id", "into", "format"]);
const SWITCHES = new Set(["help", "version", "dry-run", "keep-public", "with-text", "with-copies"]);

/**
 * readWords splits a command line into flags and words the way node:util's strict parseArgs
 * does for these options: `--flag value` or `--flag=value`, `--` ends the flags; an unknown
 * or short flag, a missing value, a value that looks like a flag, and a value given to a
 * switch are usage errors. Not node:util itself: loading it cost ~1 ms and ~3.5 MiB of
 * memory at every start.
 */
function readWords(argv: string[]): { values: Record<string, string | boolean>; positionals: string[] } {
  const values: Record<string, string | boolean> = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!word.startsWith("-") || word === "-") {
      positionals.push(word);
      continue;
    }
    const equals = word.indexOf("=");
    const name = word.startsWith("--") ? word.slice(2, equals === -1 ? undefined : equals) : "";
    if (SWITCHES.has(name)) {
      if (equals !== -1) throw new UsageError(`--${name} does not take a value`);
      values[name] = true;
    } else if (STRING_FLAGS.has(name)) {
      const value = equals === -1 ? argv[++i] : word.slice(equals + 1);
      if (value === undefined || (equals === -1 && value.length > 1 && value.startsWith("-"))) {
        throw new UsageError(`--${name} needs a value (write --${name}=VALUE for one starting with "-")`);
      }
      values[name] = value;
    } else {
      throw new UsageError(`unknown option "${equals === -1 ? word : word.slice(0, equals)}"`);
    }
  }
  return { values, positionals };
}

async function withDb(config: Config, work: (db: Db) => Promise<number>): Promise<number> {
  const db = openDatabase(databasePath(config.dataDir));
  try {
    return await work(db);
  } finally {
    db.$client.close();
  }
}

/**
 * describeImport is the import's report for a terminal: a summary line (counts only; the links
 * marked to read and archived when there are any), then
 * tab-separated lines: the format when the file is not a bookmark file (`format NAME`), its unknown
 * fields (`unknown fields A, B`), one per destination collection (`collection PATH new|existing VISIBILITY LINKS`, PATH
 * its place in the tree such as `Bikes › Home`, and for a private stand-in `instead of public NAME`), then one per entry that was not imported
 * (`duplicate URL NAME`, `skipped URL NAME REASON`), and one per entry whose date could not be read
 * (`date URL NAME WHAT`, ending "kept the import time").
 */
export function describeImport(report: ImportReport, dryRun: boolean): string[] {
  const created = report.collectionsCreated;
  const lines = [
    `${dryRun ? "dry run, nothing stored: would import" : "imported"} ${countOf(report.linksCreated, "link")}; `
      + (report.linksAdded > 0 ? `${countOf(report.linksAdded, "link you had", "links you had")} put in more collections; ` : "")
      + (report.linksToRead > 0 ? `${countOf(report.linksToRead, "link")} marked to read; ` : "")
      + (report.linksArchived > 0 ? `${countOf(report.linksArchived, "link")} marked archived; ` : "")
      + `${countOf(created.length, "new collection")}; ${countOf(report.duplicates.length, "duplicate")}; ${formatNumber(report.skipped.length)} skipped`,
  ];
  if (report.format !== "netscape") lines.push(["format", FORMAT_NAMES[report.format]].join("\t"));
  if (report.unknownFields.length > 0) lines.push(["unknown fields", report.unknownFields.join(", ")].map(oneLine).join("\t"));
  for (const { name, path, isNew, visibility, links, insteadOf } of report.destinations) {
    const fields = ["collection", [...path, name].join(" › "), isNew ? "new" : "existing", visibility, countOf(links, "link")];
    if (insteadOf !== null) fields.push(`instead of public ${insteadOf}`);
    lines.push(fields.map(oneLine).join("\t"));
  }
  for (const entry of report.duplicates) lines.push(["duplicate", entry.url, entry.name].map(oneLine).join("\t"));
  for (const entry of report.skipped) lines.push(["skipped", entry.url, entry.name, entry.reason].map(oneLine).join("\t"));
  for (const entry of report.unreadDates) lines.push(["date", entry.url, entry.name, `${unreadDatesText(entry.dates)}`].map(oneLine).join("\t"));
  return lines;
}

/** oneLine keeps a field from breaking the line-and-tab layout. */
const oneLine = (text: string) => text.replace(/[\t\r\n]+/g, " ");

function requireUser(db: Db, email: string) {
  const user = findUserByEmail(db, email);
  if (!user) throw new CommandError(`no user has the email ${email}`);
  return user;
}

/** requireShelf is the shelf of the user with that email (the commands that read or write one), with the configured room for page copies. */
function requireShelf(db: Db, email: string, config: Pick<Config, "copyQuota">): Shelf {
  return new Shelf(db, requireUser(db, email), undefined, undefined, config.copyQuota);
}

/** readNewPassword reads the first line of piped stdin, or prompts twice on a terminal. */
async function readNewPassword(): Promise<string> {
  if (!process.stdin.isTTY) {
    const text = await Bun.stdin.text();
    return text.split(/\r?\n/, 1)[0] ?? "";
  }
  const first = await promptHidden("New password: ");
  const second = await promptHidden("Repeat it: ");
  if (first !== second) throw new CommandError("the two passwords differ");
  return first;
}

/** promptHidden reads one line from the terminal without echoing it. */
function promptHidden(question: string): Promise<string> {
  process.stderr.write(question);
  const stdin = process.stdin;
  stdin.setRawMode(true);
  stdin.setEncoding("utf8");
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = "";
    const finish = () => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write("\n");
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === "\r" || char === "\n") {
          finish();
          return resolve(value);
        }
        if (char === "\u0003" || char === "\u0004") {
          finish();
          return reject(new CommandError("cancelled"));
        }
        value = char === "\u007f" || char === "\b" ? [...value].slice(0, -1).join("") : value + char;
      }
    };
    stdin.on("data", onData);
  });
}
