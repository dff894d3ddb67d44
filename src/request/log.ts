import { Elysia, StatusMap } from "elysia";
import type { Config } from "../common/config";
import { clientAddress, type Network } from "./arrival";
import { pathOf } from "./path";

/** Where the server's log lines go (one call per line; the server writes them to stderr). */
export type LogSink = (line: string) => void;

/** At most this many stack traces of unexpected errors are logged per minute. */
export const STACKS_PER_MINUTE = 5;
/** Distinct unexpected errors remembered (to log each one's stack once); forgotten all at once past it. */
const KNOWN_ERRORS = 1000;
/** Lines of a stack trace kept (the message and the innermost frames). */
const STACK_LINES = 12;

/** printablePath is a request's path without its query string, anything but printable ASCII percent-encoded. */
export function printablePath(request: Request): string {
  return pathOf(request.url).replace(/[^\x21-\x7e]/g, (char) => encodeURIComponent(char));
}

/** oneLine cuts text to its first line and 300 characters, so a message cannot forge or flood lines. */
function oneLine(text: string): string {
  const line = text.split(/[\r\n]/, 1)[0] ?? "";
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/**
 * unexpectedErrorLog reports errors no rule expected: one line per failed request (method,
 * path without its query, the error's name and message), and the stack trace only the first
 * time an error thrown from that place is seen, at most STACKS_PER_MINUTE a minute. However
 * many requests fail, the log grows by about one line each.
 */
export function unexpectedErrorLog(log: LogSink, clock: () => number) {
  const known = new Set<string>();
  let minute = -1;
  let stacks = 0;
  return (request: Request, error: unknown) => {
    const summary = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    log(`linkshelf: unexpected error on ${request.method} ${printablePath(request)}: ${oneLine(summary)}`);
    const stack = error instanceof Error ? error.stack : undefined;
    if (!stack) return;
    // Where it was thrown identifies it; the message may differ from request to request.
    const lines = stack.split("\n");
    const key = `${error instanceof Error ? error.name : ""} ${lines.find((line) => line.trimStart().startsWith("at ")) ?? lines[0]}`;
    if (known.has(key)) return;
    const now = Math.floor(clock() / 60_000);
    if (now !== minute) {
      minute = now;
      stacks = 0;
    }
    if (stacks >= STACKS_PER_MINUTE) return;
    stacks++;
    if (known.size >= KNOWN_ERRORS) known.clear();
    known.add(key);
    log(lines.slice(0, STACK_LINES).join("\n"));
  };
}

export type UnexpectedErrorLog = ReturnType<typeof unexpectedErrorLog>;

/** statusOf is the status a response went out with, as the after-response hook sees it. */
function statusOf(responseValue: unknown, status: number | string | undefined): number {
  if (responseValue instanceof Response) return responseValue.status;
  if (typeof status === "number") return status;
  return status === undefined ? 200 : StatusMap[status as keyof typeof StatusMap] ?? 200;
}

/** What the access log reads: the network (for the client's address), whether it is on, and the clock. */
export type AccessLogDeps = Network & { config: Pick<Config, "log">; clock: () => number };

/** When a request arrived and from where, as its access log line tells it. */
interface Arrival {
  at: number;
  start: number;
  address: string;
}

/** accessLines reads a request's arrival and writes its line (see accessLog). */
function accessLines({ config, clock, peerAddress }: AccessLogDeps, log: LogSink) {
  return {
    // The peer's address is read on arrival: once the answer is sent the socket may be gone.
    arrive: (request: Request): Arrival => ({ at: clock(), start: performance.now(), address: clientAddress(request, { config, peerAddress }) }),
    write(request: Request, arrival: Arrival | undefined, status: number) {
      const ms = arrival ? performance.now() - arrival.start : 0;
      log(`${new Date(arrival?.at ?? clock()).toISOString()} ${logSafe(arrival?.address ?? "unknown")} ${request.method} ${printablePath(request)} ${status} ${ms.toFixed(1)}ms`);
    },
  };
}

/**
 * accessLog, with `LINKSHELF_LOG=access`, logs one line per request once it is answered:
 * `<ISO time of arrival> <client IP> <method> <path> <status> <milliseconds>ms`. The path goes without
 * its query string, and no header is logged, so tokens, cookies, passwords and setup codes
 * never reach the log. Off by default, and then it adds no hook at all.
 */
export function accessLog(deps: AccessLogDeps, log: LogSink) {
  const plugin = new Elysia({ name: "linkshelf/access-log" });
  if (!deps.config.log.access) return plugin;
  const lines = accessLines(deps, log);
  const arrivals = new WeakMap<Request, Arrival>();
  return plugin
    .onRequest(({ request }) => {
      arrivals.set(request, lines.arrive(request));
    })
    .onAfterResponse({ as: "global" }, ({ request, set, responseValue }) => {
      lines.write(request, arrivals.get(request), statusOf(responseValue, set.status));
    });
}

/**
 * loggedAccess wraps a handler that the server calls directly, outside the app's hooks (the
 * request pipeline's `serve`, for the redirect's native route), so that its requests are
 * logged like every other (accessLog); with the access log off it is the handler itself.
 */
export function loggedAccess<Asking extends Request, Rest extends unknown[]>(deps: AccessLogDeps, log: LogSink, handler: (request: Asking, ...rest: Rest) => Promise<Response>) {
  if (!deps.config.log.access) return handler;
  const lines = accessLines(deps, log);
  return async (request: Asking, ...rest: Rest): Promise<Response> => {
    const arrival = lines.arrive(request);
    const response = await handler(request, ...rest);
    lines.write(request, arrival, response.status);
    return response;
  };
}

/**
 * logSafe writes a client-supplied value into a log line as one word: every character outside
 * printable ASCII (controls, line breaks, spaces, bidi overrides, any non-ASCII), the backslash
 * and the double quote are written as `\xNN` / `\uNNNN`, at most 254 characters are kept, and
 * an empty value is `""`. A value can thus neither start a new line nor hold a space (so not
 * `from <address>` either).
 */
export function logSafe(value: string): string {
  const kept = [...value].slice(0, 254).join("");
  if (kept === "") return '""';
  return kept.replace(/[^\x21-\x7e]|[\\"]/gu, (char) => {
    const code = char.codePointAt(0)!;
    if (code <= 0xff) return `\\x${code.toString(16).padStart(2, "0")}`;
    if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, "0")}`;
    return `\\u{${code.toString(16)}}`;
  });
}
