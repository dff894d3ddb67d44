/**
 * `bun bench/slow-client.ts '<json>'`: the slow client of bench/slow-uploads.ts, in a process of
 * its own (so that its thousands of sockets cost the benchmark's own polling nothing). It opens
 * `connections` connections to 127.0.0.1:`port`, sends each `head` and the first `sent` bytes of
 * a body, then one more byte every `everySeconds` on every connection still open, for
 * `seconds` after the last connection opened. Then it prints what the server did, as one JSON
 * line, and exits.
 */
import { connect, type Socket } from "node:net";

export interface SlowClientPlan {
  port: number;
  connections: number;
  /** The request line and headers, ending with the empty line. */
  head: string;
  /** Body bytes sent at once, after the head. */
  sent: number;
  everySeconds: number;
  seconds: number;
}

export interface SlowClientReport {
  /** Connections the server accepted. */
  opened: number;
  /** Connections that could not be opened. */
  failed: number;
  /** Answers by status code (a connection answered counts once). */
  answers: Record<string, number>;
  /** Connections still open, unanswered, when the client stopped: the bodies the server held. */
  held: number;
  /** Connections the server closed, answered or not. */
  closedByServer: number;
  /** Seconds from the first connection to the last one opened. */
  openingSeconds: number;
}

/** How many connections are being opened at once: more overflow the listen queue, and the kernel retries them only after a second. */
const OPENING_AT_ONCE = 256;

async function run(plan: SlowClientPlan): Promise<SlowClientReport> {
  const body = Buffer.alloc(plan.sent, 0x61);
  const sockets = new Set<Socket>();
  const answered = new WeakSet<Socket>();
  const report: SlowClientReport = { opened: 0, failed: 0, answers: {}, held: 0, closedByServer: 0, openingSeconds: 0 };
  const opening = performance.now();
  let stopping = false;

  const open = () => new Promise<void>((settled) => {
    const socket = connect(plan.port, "127.0.0.1");
    socket.once("connect", () => {
      report.opened++;
      sockets.add(socket);
      socket.write(plan.head);
      socket.write(body);
      settled();
    });
    socket.on("data", (chunk) => {
      if (answered.has(socket)) return;
      answered.add(socket);
      const status = chunk.toString("latin1", 0, 12).split(" ")[1] ?? "?";
      report.answers[status] = (report.answers[status] ?? 0) + 1;
    });
    socket.on("error", () => {
      if (!sockets.has(socket)) {
        report.failed++;
        settled();
      }
    });
    socket.on("close", () => {
      if (sockets.delete(socket) && !stopping) report.closedByServer++;
    });
  });

  for (let next = 0; next < plan.connections; next += OPENING_AT_ONCE) {
    await Promise.all(Array.from({ length: Math.min(OPENING_AT_ONCE, plan.connections - next) }, open));
  }
  report.openingSeconds = (performance.now() - opening) / 1000;

  const trickle = setInterval(() => {
    for (const socket of sockets) socket.write("a");
  }, plan.everySeconds * 1000);
  await Bun.sleep(plan.seconds * 1000);
  clearInterval(trickle);
  stopping = true;
  report.held = [...sockets].filter((socket) => !answered.has(socket)).length;
  for (const socket of sockets) socket.destroy();
  return report;
}

if (import.meta.main) console.log(JSON.stringify(await run(JSON.parse(process.argv[2]!) as SlowClientPlan)));
