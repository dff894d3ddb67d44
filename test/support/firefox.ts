/**
 * Firefox for the extension's end-to-end test, driven over WebDriver BiDi (Firefox's own remote
 * protocol; Playwright needs a patched Firefox build, Debian's firefox-esr is not one). Only the
 * few commands the test needs, over Bun's WebSocket.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { OutputWatcher } from "./binary";
import { FIREFOX } from "./programs";

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/** A remote value as BiDi returns it; `value` for primitives, `sharedId` for nodes. */
export interface RemoteValue {
  type: string;
  value?: unknown;
  sharedId?: string;
}

export class Bidi {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  private constructor(private readonly socket: WebSocket) {
    socket.onmessage = (message) => {
      const data = JSON.parse(String(message.data)) as { id?: number; type: string; result?: unknown; error?: string; message?: string };
      const waiter = data.id === undefined ? undefined : this.pending.get(data.id);
      if (!waiter) return;
      this.pending.delete(data.id!);
      if (data.type === "error") waiter.reject(new Error(`${data.error}: ${data.message}`));
      else waiter.resolve(data.result);
    };
  }

  static async connect(url: string): Promise<Bidi> {
    const socket = new WebSocket(url);
    await new Promise((resolve, reject) => {
      socket.onopen = resolve;
      socket.onerror = () => reject(new Error(`cannot connect to ${url}`));
    });
    return new Bidi(socket);
  }

  send<T = Record<string, unknown>>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.nextId++;
    this.socket.send(JSON.stringify({ id, method, params }));
    return new Promise<T>((resolve, reject) => this.pending.set(id, { resolve: resolve as (result: unknown) => void, reject }));
  }

  /** evaluate runs `expression` in a browsing context, awaiting a promise; an exception fails. */
  async evaluate(context: string, expression: string): Promise<RemoteValue> {
    const answer = await this.send<{ type: string; result: RemoteValue; exceptionDetails?: { text: string } }>("script.evaluate", {
      expression,
      target: { context },
      awaitPromise: true,
      resultOwnership: "root",
    });
    if (answer.type === "exception") throw new Error(`${expression}: ${answer.exceptionDetails?.text}`);
    return answer.result;
  }

  /** text evaluates an expression whose value is a string (JSON for anything richer). */
  async text(context: string, expression: string): Promise<string> {
    return String((await this.evaluate(context, expression)).value ?? "");
  }

  /** click presses the mouse on an element: real input, which the permissions API insists on. */
  async click(context: string, selector: string): Promise<void> {
    const element = await this.evaluate(context, `document.querySelector(${JSON.stringify(selector)})`);
    await this.send("input.performActions", {
      context,
      actions: [{
        type: "pointer",
        id: "mouse",
        actions: [
          { type: "pointerMove", x: 0, y: 0, origin: { type: "element", element: { sharedId: element.sharedId } } },
          { type: "pointerDown", button: 0 },
          { type: "pointerUp", button: 0 },
        ],
      }],
    });
  }

  async urls(): Promise<{ context: string; url: string }[]> {
    return (await this.send<{ contexts: { context: string; url: string }[] }>("browsingContext.getTree")).contexts;
  }

  async newTab(url: string): Promise<string> {
    const { context } = await this.send<{ context: string }>("browsingContext.create", { type: "tab" });
    await this.send("browsingContext.navigate", { context, url, wait: "complete" });
    return context;
  }

  close(): void {
    this.socket.close();
  }
}

export interface RunningFirefox {
  bidi: Bidi;
  stop(): Promise<void>;
}

/** launchFirefox starts headless Firefox on a new profile with `prefs` and opens a BiDi session. */
export async function launchFirefox(profile: string, prefs: Record<string, string | number | boolean>): Promise<RunningFirefox> {
  mkdirSync(profile, { recursive: true });
  writeFileSync(join(profile, "user.js"), Object.entries(prefs).map(([name, value]) => `user_pref(${JSON.stringify(name)}, ${JSON.stringify(value)});\n`).join(""));
  const proc = Bun.spawn([FIREFOX.path, "--headless", "--no-remote", "--profile", profile, "--remote-debugging-port", "0"], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  const log = new OutputWatcher(proc.stderr);
  let bidi: Bidi;
  try {
    const [, url] = await log.waitFor(/WebDriver BiDi listening on (ws:\/\/\S+)/);
    bidi = await Bidi.connect(`${url}/session`);
    await bidi.send("session.new", { capabilities: {} });
  } catch (error) {
    proc.kill("SIGKILL");
    throw error;
  }
  return {
    bidi,
    async stop() {
      bidi.close();
      proc.kill();
      await proc.exited;
    },
  };
}
