import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CADDY, CURL, FAIL2BAN, NGINX, OPENSSL, requireProgram, type Program } from "../support/programs";
import { binaryWorkspace, cleanEnv, createUserWithToken, REPO_ROOT, startServer, type BinaryWorkspace, type RunningServer } from "../support/binary";

/**
 * The reverse-proxy configurations of docs/operations.md, taken from the document itself and run:
 * Caddy and nginx on loopback ports in front of the compiled linkshelf, started as the guide says
 * (`LINKSHELF_HOST=127.0.0.1`, `LINKSHELF_TRUST_PROXY` for loopback). Through each proxy a browser
 * can sign in over HTTPS and gets a `Secure` session cookie, and a cross-site form post is still
 * refused. Only the host name's port, the certificate paths and linkshelf's port are changed; for
 * Caddy, `tls internal` is added as the guide says for a LAN-only name, so nothing is asked of
 * any certificate authority. The guide's fail2ban filter is run by fail2ban's own checker.
 * Each is skipped, with one line, when its program is not installed (Debian packages
 * `nginx-light`, `caddy`, `fail2ban`).
 */

const HOST = "links.example.com";
const GUIDE = readFileSync(join(REPO_ROOT, "docs", "operations.md"), "utf8");

/** codeBlockAfter returns the first fenced code block after a heading of the guide. */
function codeBlockAfter(heading: string): string {
  const section = GUIDE.slice(GUIDE.indexOf(`\n### ${heading}\n`));
  const block = /\n```[a-z]*\n([\s\S]*?)\n```/.exec(section);
  if (!block) throw new Error(`no code block after "${heading}" in docs/operations.md`);
  return block[1]!;
}

/** The trusted-proxy value the guide gives for a proxy on the same machine. */
function guideTrustProxy(heading: string): string {
  const section = GUIDE.slice(GUIDE.indexOf(`\n### ${heading}\n`));
  const value = /`LINKSHELF_TRUST_PROXY=([^`]+)`/.exec(section);
  if (!value) throw new Error(`no LINKSHELF_TRUST_PROXY value after "${heading}"`);
  return value[1]!;
}

/** freePort asks the system for a loopback port nobody uses right now. */
function freePort(): number {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = listener;
  listener.stop(true);
  return port;
}

interface Answer {
  status: number;
  headers: string;
  body: string;
}

/** curl asks the proxy as a browser would ask `https://links.example.com:<port>`, resolved to loopback. */
async function curl(port: number, args: string[], scheme = "https"): Promise<Answer> {
  const proc = Bun.spawn(
    ["curl", "-sk", "--max-time", "10", "--resolve", `${HOST}:${port}:127.0.0.1`, "-D", "-", "-o", "-", "-w", "\n%{http_code}", ...args.map((arg) => arg.replace("URL", `${scheme}://${HOST}:${port}`))],
    { stdout: "pipe", stderr: "pipe" },
  );
  const [out, exitCode] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  if (exitCode !== 0) throw new Error(`curl ${args.join(" ")} failed with ${exitCode}: ${await new Response(proc.stderr).text()}`);
  const status = Number(out.slice(out.lastIndexOf("\n") + 1));
  const rest = out.slice(0, out.lastIndexOf("\n"));
  const split = rest.indexOf("\r\n\r\n");
  return { status, headers: rest.slice(0, split), body: rest.slice(split + 4) };
}

/** waitForProxy polls until the proxy answers `/healthz` through to linkshelf. */
async function waitForProxy(port: number, proc: Bun.Subprocess, log: () => string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (proc.exitCode !== null) throw new Error(`the proxy exited with ${proc.exitCode}:\n${log()}`);
    try {
      if ((await curl(port, ["URL/healthz"])).status === 200) return;
    } catch {
      // not listening yet
    }
    await Bun.sleep(100);
  }
  throw new Error(`the proxy did not answer within 10 s:\n${log()}`);
}

interface Proxy {
  name: string;
  program: string;
  /** The program it runs, with its Debian package. */
  needs: Program;
  /** Writes the configuration into `dir` and returns the command that runs it in the foreground. */
  start(dir: string, ports: { https: number; http: number; linkshelf: number }): string[];
}

const PROXIES: Proxy[] = [
  {
    name: "Caddy",
    program: "caddy",
    needs: CADDY,
    start(dir, ports) {
      const site = codeBlockAfter("Caddy")
        .replace(`${HOST} {`, `${HOST}:${ports.https} {\n\ttls internal`)
        .replace("127.0.0.1:3000", `127.0.0.1:${ports.linkshelf}`);
      expect(site).toContain(`tls internal`);
      expect(site).toContain(`reverse_proxy 127.0.0.1:${ports.linkshelf}`);
      const global = `{\n\tadmin off\n\tskip_install_trust\n\thttp_port ${ports.http}\n\thttps_port ${ports.https}\n\tstorage file_system ${join(dir, "storage")}\n}\n`;
      writeFileSync(join(dir, "Caddyfile"), global + site + "\n");
      return ["caddy", "run", "--adapter", "caddyfile", "--config", join(dir, "Caddyfile")];
    },
  },
  {
    name: "nginx",
    program: "nginx",
    needs: NGINX,
    start(dir, ports) {
      const certificate = join(dir, "cert.pem");
      const key = join(dir, "key.pem");
      const openssl = Bun.spawnSync(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", `/CN=${HOST}`, "-keyout", key, "-out", certificate]);
      if (openssl.exitCode !== 0) throw new Error(`openssl failed: ${openssl.stderr.toString()}`);
      const site = codeBlockAfter("nginx")
        .replace("listen 80;", `listen 127.0.0.1:${ports.http};`)
        .replace("listen 443 ssl;", `listen 127.0.0.1:${ports.https} ssl;`)
        .replace(/\n\s*listen \[::\]:\d+( ssl)?;/g, "")
        .replace(`/etc/ssl/certs/${HOST}.pem`, certificate)
        .replace(`/etc/ssl/private/${HOST}.key`, key)
        .replace("http://127.0.0.1:3000", `http://127.0.0.1:${ports.linkshelf}`);
      expect(site).toContain(`proxy_pass http://127.0.0.1:${ports.linkshelf};`);
      const temp = (name: string) => `${name} ${join(dir, name)};`;
      writeFileSync(
        join(dir, "nginx.conf"),
        `daemon off;\nmaster_process off;\npid ${join(dir, "nginx.pid")};\nerror_log ${join(dir, "error.log")};\nevents {}\nhttp {\n` +
          `access_log off;\n${temp("client_body_temp_path")}\n${temp("proxy_temp_path")}\n${temp("fastcgi_temp_path")}\n${temp("uwsgi_temp_path")}\n${temp("scgi_temp_path")}\n` +
          `${site}\n}\n`,
      );
      return ["nginx", "-p", dir, "-c", join(dir, "nginx.conf")];
    },
  },
];

for (const proxy of PROXIES) {
  const installed = [proxy.needs, CURL, OPENSSL].map(requireProgram).every(Boolean);

  describe.skipIf(!installed)(`docs/operations.md: linkshelf behind ${proxy.name}`, () => {
    let workspace: BinaryWorkspace;
    let server: RunningServer;
    let proxyProcess: Bun.Subprocess<"ignore", "pipe", "pipe">;
    let proxyLog = "";
    let port: number;
    let httpPort: number;

    beforeAll(async () => {
      workspace = binaryWorkspace(`proxy-${proxy.program}`);
      const env = cleanEnv({ LINKSHELF_TRUST_PROXY: guideTrustProxy(proxy.name) });
      await createUserWithToken(workspace, "me@example.com", "Me", env);
      server = await startServer(workspace.binary, { cwd: workspace.cwd, dataDir: workspace.dataDir, env });
      port = freePort();
      httpPort = freePort();
      const dir = join(workspace.root, proxy.program);
      mkdirSync(dir);
      const command = proxy.start(dir, { https: port, http: httpPort, linkshelf: server.port });
      proxyProcess = Bun.spawn(command, {
        cwd: dir,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config") },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      void (async () => {
        for await (const chunk of proxyProcess.stderr) proxyLog += new TextDecoder().decode(chunk);
      })();
      void new Response(proxyProcess.stdout).text();
      await waitForProxy(port, proxyProcess, () => proxyLog);
    }, 60_000);

    afterAll(async () => {
      proxyProcess?.kill("SIGTERM");
      await proxyProcess?.exited;
      await server?.stop();
      if (workspace) rmSync(workspace.root, { recursive: true, force: true });
    });

    it("signs a browser in over HTTPS with a Secure session cookie that opens the pages", async () => {
      const signIn = await curl(port, [
        "-H", `Origin: https://${HOST}:${port}`,
        "--data-urlencode", "email=me@example.com",
        "--data-urlencode", "password=long enough password",
        "--data-urlencode", "next=/",
        "URL/login",
      ]);
      expect(signIn.status).toBe(303);
      const cookie = /^set-cookie: (linkshelf_session=[^;]+);(.*)$/im.exec(signIn.headers);
      expect(cookie).not.toBeNull();
      expect(cookie![2]).toMatch(/;\s*Secure/i);
      const home = await curl(port, ["-H", `Cookie: ${cookie![1]}`, "URL/"]);
      expect(home.status).toBe(200);
      expect(home.body).toContain("Inbox");
    });

    it("still refuses a cross-site form post", async () => {
      const refused = await curl(port, [
        "-H", "Origin: https://elsewhere.example",
        "--data-urlencode", "email=me@example.com",
        "--data-urlencode", "password=long enough password",
        "URL/login",
      ]);
      expect(refused.status).toBe(403);
      expect(refused.headers).not.toMatch(/set-cookie: linkshelf_session/i);
    });

    it("sends plain HTTP to HTTPS", async () => {
      const plain = await curl(httpPort, ["URL/account"], "http");
      expect([301, 302, 308]).toContain(plain.status);
      expect(plain.headers).toMatch(new RegExp(`^location: https://${HOST.replaceAll(".", "\\.")}[:/]`, "im"));
    });
  });
}

/** The fail2ban filter of the guide's Logs section, checked by fail2ban's own `fail2ban-regex`. */
const fail2banInstalled = requireProgram(FAIL2BAN);

describe.skipIf(!fail2banInstalled)("docs/operations.md: the fail2ban filter", () => {
  it("matches the failed sign-in line, IPv4 and IPv6, with an email or `<not an email>`, and nothing else the server logs", () => {
    const filter = /```ini\n(\[Definition\][\s\S]*?)\n```/.exec(GUIDE);
    expect(filter).not.toBeNull();
    const dir = join(REPO_ROOT, "test", `.fail2ban-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    try {
      writeFileSync(join(dir, "linkshelf.conf"), filter![1] + "\n");
      const lines = [
        "2026-11-25 03:50:00 sign-in failed for me@example.com from 192.0.2.7",
        "2026-11-25 03:50:01 sign-in failed for someone@example.com from 2001:db8::1",
        "2026-11-25 03:50:01 sign-in failed for <not an email> from 198.51.100.9",
        "2026-11-25 03:50:02 linkshelf listening on http://0.0.0.0:3000 (data in /var/lib/linkshelf)",
        "2026-11-25 03:50:03 linkshelf: no user yet. Create the first one at http://localhost:3000/setup with setup code: K7QM-3XWD-PA9R",
      ];
      writeFileSync(join(dir, "log"), lines.join("\n") + "\n");
      const run = Bun.spawnSync(["fail2ban-regex", "--print-all-matched", join(dir, "log"), join(dir, "linkshelf.conf")]);
      const out = run.stdout.toString();
      expect(run.exitCode).toBe(0);
      expect(out).toMatch(/Lines: 5 lines, 0 ignored, 3 matched, 2 missed/);
      expect(out).toContain("192.0.2.7");
      expect(out).toContain("2001:db8::1");
      expect(out).toContain("198.51.100.9");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
