/**
 * `linkshelf healthcheck`: the probe a container runs. Silent exit 0 when /healthz answers 200 on
 * the configured host and port (a wildcard host is reached over loopback); one line and exit 1
 * otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { healthzUrl } from "../../src/liveness-probe";
import { binaryWorkspace, cleanEnv, runBinary, startServer, type BinaryWorkspace, type RunningServer } from "../support/binary";

let workspace: BinaryWorkspace;
let server: RunningServer;

beforeAll(async () => {
  workspace = binaryWorkspace("healthcheck");
  server = await startServer(workspace.binary, { cwd: workspace.cwd, dataDir: workspace.dataDir });
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

const healthcheck = (args: string[], env: Record<string, string> = {}) => runBinary(workspace.binary, ["healthcheck", ...args], { cwd: workspace.cwd, env: cleanEnv(env) });

/** A server on a free loopback port answering every request with `status`. */
function answering(status: number) {
  return Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("{}", { status }) });
}

describe("linkshelf healthcheck", () => {
  it("exits 0 and prints nothing when the server answers /healthz with 200 (--port and --host)", async () => {
    expect(await healthcheck(["--port", String(server.port), "--host", "127.0.0.1"])).toEqual({ exitCode: 0, stdout: "", stderr: "" });
  });

  it("reads the port and host from LINKSHELF_PORT and LINKSHELF_HOST like serve does", async () => {
    expect(await healthcheck([], { LINKSHELF_PORT: String(server.port), LINKSHELF_HOST: "127.0.0.1" })).toEqual({ exitCode: 0, stdout: "", stderr: "" });
  });

  it("reaches a server listening on every address (the default 0.0.0.0) over loopback", async () => {
    expect(await healthcheck([], { LINKSHELF_PORT: String(server.port) })).toEqual({ exitCode: 0, stdout: "", stderr: "" });
    expect(healthzUrl({ host: "0.0.0.0", port: 3000 })).toBe("http://127.0.0.1:3000/healthz");
    expect(healthzUrl({ host: "::", port: 3000 })).toBe("http://[::1]:3000/healthz");
    expect(healthzUrl({ host: "::1", port: 80 })).toBe("http://[::1]:80/healthz");
    expect(healthzUrl({ host: "192.168.1.20", port: 8080 })).toBe("http://192.168.1.20:8080/healthz");
  });

  for (const status of [503, 500, 404, 301, 204]) {
    it(`exits 1 with one line when /healthz answers ${status}`, async () => {
      const other = answering(status);
      try {
        const result = await healthcheck(["--port", String(other.port), "--host", "127.0.0.1"]);
        expect(result.exitCode).toBe(1);
        expect(result.stdout).toBe("");
        expect(result.stderr).toBe(`linkshelf: unhealthy: http://127.0.0.1:${other.port}/healthz answered ${status}\n`);
      } finally {
        other.stop(true);
      }
    });
  }

  it("exits 1 with one line when nothing listens on the port", async () => {
    const other = answering(200);
    const port = other.port;
    other.stop(true);
    const result = await healthcheck(["--port", String(port), "--host", "127.0.0.1"]);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toStartWith(`linkshelf: unhealthy: http://127.0.0.1:${port}/healthz did not answer: `);
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  it("refuses flags it does not take and a bad port like the other commands (usage, exit 2)", async () => {
    expect((await healthcheck(["--data-dir", "x"])).exitCode).toBe(2);
    expect((await healthcheck(["extra"])).exitCode).toBe(2);
    const badPort = await healthcheck(["--port", "99999"]);
    expect(badPort.exitCode).toBe(2);
    expect(badPort.stderr).toContain("invalid port");
  });
});
