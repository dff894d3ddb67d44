/**
 * A loopback TCP relay in front of a server that keeps the head of every HTTP request passing
 * through (method, target, headers), as the browser sent it: so a browser test can tell what a
 * browser sends (`Sec-Fetch-Site`, say) where no devtools protocol shows it. Bytes are passed on
 * untouched both ways, the `Host` header included, so the server sees the relay's address as its own.
 */
import type { Socket } from "bun";

export interface RequestHead {
  method: string;
  target: string;
  /** Lower-cased names. */
  headers: Record<string, string>;
}

export interface HeaderTap {
  /** `http://127.0.0.1:<port>`: the server, through the relay. */
  origin: string;
  /** Every request head seen so far, in the order they arrived. */
  heads(): RequestHead[];
  stop(): void;
}

const HEAD = /(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) (\S+) HTTP\/1\.[01]\r\n((?:[^\r\n]+\r\n)*)\r\n/;

interface Pipe {
  /** The other end, once connected. */
  peer?: Socket<Pipe>;
  /** What could not be written yet (to this socket). */
  pending: Uint8Array[];
  /** From the browser: what it sent, as text, and how much of it was read for heads. */
  sent?: { text: string; read: number };
  /** From the browser: what arrived before the server's connection was open. */
  early?: Uint8Array[];
}

/** send writes `data` to `socket`, keeping what it did not take until it drains. */
function send(socket: Socket<Pipe>, data: Uint8Array): void {
  if (socket.data.pending.length > 0) {
    socket.data.pending.push(data);
    return;
  }
  const written = socket.write(data);
  if (written < data.length) socket.data.pending.push(data.subarray(Math.max(0, written)));
}

function drain(socket: Socket<Pipe>): void {
  while (socket.data.pending.length > 0) {
    const next = socket.data.pending[0]!;
    const written = socket.write(next);
    if (written < next.length) {
      socket.data.pending[0] = next.subarray(Math.max(0, written));
      return;
    }
    socket.data.pending.shift();
  }
}

/** tapHeaders listens on a new loopback port and relays every connection to `target` (`http://127.0.0.1:<port>`). */
export function tapHeaders(target: string): HeaderTap {
  const { hostname, port } = new URL(target);
  const heads: RequestHead[] = [];
  /** take moves the heads complete in a connection's text into `heads`, in the order they arrive. */
  const take = (sent: { text: string; read: number }): void => {
    const pattern = new RegExp(HEAD.source, "g");
    pattern.lastIndex = sent.read;
    for (let match = pattern.exec(sent.text); match; match = pattern.exec(sent.text)) {
      const [, method, target, lines] = match;
      heads.push({
        method: method!,
        target: target!,
        headers: Object.fromEntries(lines!.split("\r\n").filter(Boolean).map((line) => {
          const at = line.indexOf(":");
          return [line.slice(0, at).trim().toLowerCase(), line.slice(at + 1).trim()];
        })),
      });
      sent.read = pattern.lastIndex;
    }
  };
  const listener = Bun.listen<Pipe>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        const sent = { text: "", read: 0 };
        client.data = { pending: [], sent, early: [] };
        void Bun.connect<Pipe>({
          hostname,
          port: Number(port),
          data: { pending: [], peer: client },
          socket: {
            open(server) {
              client.data.peer = server;
              for (const bytes of client.data.early!.splice(0)) send(server, bytes);
            },
            data(server, bytes) {
              send(server.data.peer!, bytes);
            },
            drain,
            close(server) {
              server.data.peer?.end();
            },
            error(server) {
              server.data.peer?.end();
            },
          },
        }).then(undefined, () => client.end());
      },
      data(client, bytes) {
        client.data.sent!.text += new TextDecoder("latin1").decode(bytes);
        take(client.data.sent!);
        // Until the server's connection is open, what arrives waits.
        if (client.data.peer) send(client.data.peer, bytes);
        else client.data.early!.push(bytes.slice());
      },
      drain,
      close(client) {
        client.data.peer?.end();
      },
      error(client) {
        client.data.peer?.end();
      },
    },
  });
  return {
    origin: `http://127.0.0.1:${listener.port}`,
    heads: () => [...heads],
    stop: () => listener.stop(true),
  };
}
