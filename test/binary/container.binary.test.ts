/**
 * The container image (deploy/Containerfile, assembled as `npm run image` does) built and run with
 * Debian's podman: vfs storage in a private folder, runc, cgroupfs, the host's network (on a free
 * port) and no default ulimits, which is what runs inside this sandbox. Checks /healthz, the setup
 * code in the log, an unprivileged process, the healthcheck, and data kept across a restart.
 * Skipped without podman and runc unless CI is set.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { assembleContext, BINARY_IN_IMAGE, buildCommand, UID } from "../../deploy/image";
import { testDir } from "../support/dirs";
import { waitUntil } from "../support/extension.stack";
import { PODMAN, requireProgram, RUNC } from "../support/programs";

const TIMEOUT_MS = 180_000;
const present = [PODMAN, RUNC].map(requireProgram).every(Boolean);

const dir = present ? testDir("container") : "";
const NAME = `linkshelf-test-${process.pid}`;
const IMAGE = `localhost/${NAME}:latest`;
const VOLUME = `${NAME}-data`;
/** Global options: the test's own image store, never the machine's. */
const PODMAN_OPTIONS = ["--storage-driver", "vfs", "--root", join(dir, "storage"), "--runroot", join(dir, "run"), "--cgroup-manager", "cgroupfs"];
let port = 0;

interface Result {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** podman runs one podman command with the test's store and containers.conf. */
function podman(args: string[], stdin?: string): Result {
  const result = Bun.spawnSync([PODMAN.path, ...PODMAN_OPTIONS, ...args], {
    env: { ...process.env, CONTAINERS_CONF: join(dir, "containers.conf") },
    stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  return { exitCode: result.exitCode ?? -1, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

function mustPodman(args: string[], stdin?: string): string {
  const result = podman(args, stdin);
  if (result.exitCode !== 0) throw new Error(`podman ${args.join(" ")} failed (${result.exitCode}):\n${result.stderr}`);
  return result.stdout;
}

/** The log lines linkshelf wrote (podman's own complaints about systemd timers left out). */
const containerLog = () => {
  const { stdout, stderr } = podman(["logs", NAME]);
  return `${stdout}${stderr}`.split("\n").filter((line) => line.startsWith("linkshelf")).join("\n");
};

const healthz = () => fetch(`http://127.0.0.1:${port}/healthz`).then((response) => response.status, () => 0);

beforeAll(async () => {
  if (!present) return;
  // Without this the sandbox refuses to start a container (setrlimit).
  writeFileSync(join(dir, "containers.conf"), "[containers]\ndefault_ulimits = []\n");
  const context = join(dir, "context");
  await assembleContext(context);
  const [engine, ...args] = buildCommand("podman", context, [IMAGE]);
  expect(engine).toBe("podman");
  mustPodman(args.slice(args.indexOf("build")));
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  port = probe.port!;
  probe.stop(true);
  mustPodman(["volume", "create", VOLUME]);
  mustPodman(["run", "-d", "--name", NAME, "--runtime", "runc", "--network", "host", "-e", `LINKSHELF_PORT=${port}`, "-v", `${VOLUME}:/data`, IMAGE]);
}, TIMEOUT_MS);

afterAll(() => {
  if (!present) return;
  podman(["rm", "-f", "-t", "0", NAME]);
  podman(["volume", "rm", "-f", VOLUME]);
  podman(["rmi", "-f", IMAGE]);
});

describe.skipIf(!present)("the container image under podman", () => {
  it("serves /healthz on 0.0.0.0:LINKSHELF_PORT and logs the setup code", async () => {
    await waitUntil(healthz, (status) => status === 200, "GET /healthz");
    const log = await waitUntil(async () => containerLog(), (text) => text.includes("setup code: "), "the setup code in the log");
    expect(log).toContain(`linkshelf listening on http://0.0.0.0:${port} (data in /data)`);
    expect(log).toMatch(new RegExp(`Create the first one at http://localhost:${port}/setup with setup code: \\S+`));
    console.log(`container log:\n${log}`);
  }, TIMEOUT_MS);

  it("runs the server as the unprivileged user 65532, never root", () => {
    const pid = mustPodman(["inspect", NAME, "--format", "{{.State.Pid}}"]).trim();
    const uids = /^Uid:\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    expect(uids?.slice(1).map(Number)).toEqual([UID, UID, UID, UID]);
    expect(mustPodman(["top", NAME, "user", "args"])).toMatch(new RegExp(`^linkshelf +${BINARY_IN_IMAGE} serve`, "m"));
  });

  it("reports healthy through the image's HEALTHCHECK (linkshelf healthcheck)", () => {
    expect(mustPodman(["inspect", IMAGE, "--format", "{{json .HealthCheck.Test}}"]).trim()).toBe(`["CMD","${BINARY_IN_IMAGE}","healthcheck"]`);
    expect(podman(["healthcheck", "run", NAME]).exitCode).toBe(0);
    expect(mustPodman(["inspect", NAME, "--format", "{{.State.Health.Status}}"]).trim()).toBe("healthy");
  });

  it("keeps its data in the /data volume across a restart, stopping cleanly on SIGTERM", async () => {
    mustPodman(["exec", "-i", NAME, BINARY_IN_IMAGE, "user", "create", "--email", "box@example.test", "--name", "Box"], "long enough password\n");
    mustPodman(["stop", "-t", "30", NAME]);
    expect(mustPodman(["inspect", NAME, "--format", "{{.State.ExitCode}}"]).trim()).toBe("0");
    expect(containerLog()).toContain("linkshelf: stopped");
    mustPodman(["start", NAME]);
    await waitUntil(healthz, (status) => status === 200, "GET /healthz after the restart");

    const token = mustPodman(["exec", NAME, BINARY_IN_IMAGE, "token", "create", "--email", "box@example.test"]).trim();
    expect(token).toMatch(/^lks_/);
    const links = await fetch(`http://127.0.0.1:${port}/api/v1/links`, { headers: { authorization: `Bearer ${token}` } });
    expect(links.status).toBe(200);
    // A user exists now: the restarted server printed no second setup code.
    expect(containerLog().match(/setup code: /g)).toHaveLength(1);
  }, TIMEOUT_MS);
});
