/**
 * Sign-in throttles that hold when requests arrive at once, the bounded password hashing queue
 * and the failed sign-in log line, through `app.handle` (the binary's parallel bursts are in
 * throttle.binary.test.ts).
 */
import { describe, expect, it } from "bun:test";
import { createSession } from "../../src/auth/sessions";
import { HASHING_LIMITS, memoryOf, PASSWORD_HASH, Passwords, PasswordsBusy } from "../../src/common/passwords";
import { ACCOUNT_THROTTLE, AccountThrottle, signInFailedLine } from "../../src/auth/throttle";
import { KNOWN_BROWSER_ACCOUNTS } from "../../src/auth/known-browser";
import { logSafe } from "../../src/request/log";
import { createUser, makeEnv, snapshot, START, type TestEnv, type TestUser } from "../support/helpers";

const FIFTEEN_MINUTES = 15 * 60 * 1000;
const SETUP_CODE = "ABCD-EFGH-JKLM";

/** A job the test finishes when it wants: it holds a place in the hashing queue until then. */
function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** fillQueue occupies every running and waiting place of `passwords`; `release` lets them all finish. */
async function fillQueue(passwords: Passwords) {
  const held = gate();
  const jobs: Promise<unknown>[] = [];
  for (let i = 0; i < passwords.limits.running + passwords.limits.waiting; i++) {
    jobs.push(passwords.run(PASSWORD_HASH.memoryCost, () => held.opened));
  }
  await Promise.resolve();
  expect(passwords.load).toEqual({ running: passwords.limits.running, waiting: passwords.limits.waiting });
  return { release: async () => { held.open(); await Promise.all(jobs); } };
}

interface Sent {
  status: number;
  headers: Headers;
  text: string;
}

/** submit posts a form from this site, from the address `ip` (the app trusts the loopback proxy in these tests). */
async function submit(env: TestEnv, path: string, fields: Record<string, string>, ip: string, cookie?: string): Promise<Sent> {
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    accept: "text/html",
    origin: "http://localhost",
    "x-forwarded-for": ip,
  };
  if (cookie) headers.cookie = cookie;
  const response = await env.app.handle(new Request(`http://localhost${path}`, { method: "POST", headers, body: new URLSearchParams(fields).toString() }));
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** A browser's cookie jar, as far as these tests need one: each answer's cookies set, a `Max-Age=0` one removed. */
class Jar {
  readonly cookies = new Map<string, string>();

  take(answer: Sent): Sent {
    for (const line of answer.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      const [name, value] = [pair!.slice(0, at), pair!.slice(at + 1)];
      if (/;\s*max-age=0(;|$)/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return answer;
  }

  get header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  /** The names of the known-browser cookies it holds. */
  get known(): string[] {
    return [...this.cookies.keys()].filter((name) => name.startsWith("linkshelf_known"));
  }
}

const statuses = (answers: Sent[]) => {
  const counts: Record<number, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
};

/** An app behind a trusted proxy (so each test picks its client addresses), with its own queue and log. */
function throttleEnv(options: { setupCode?: string; passwords?: Passwords } = {}) {
  const lines: string[] = [];
  const env = makeEnv({ LINKSHELF_TRUST_PROXY: "1" }, { ...options, log: (line) => void lines.push(line) });
  return { env, lines };
}

const cookieFor = (env: TestEnv, as: TestUser) => `linkshelf_session=${createSession(env.db, as.user.id, env.clock.now).id}`;
const changePassword = (current: string) => ({ current, password: "a brand new passphrase", confirm: "a brand new passphrase" });

describe("the hashing queue", () => {
  it("runs at most 2 jobs at once, lets 16 wait in order and refuses the next one at once with 503 and Retry-After", async () => {
    const passwords = new Passwords();
    expect(passwords.limits).toEqual(HASHING_LIMITS);
    expect(HASHING_LIMITS).toEqual({ running: 2, waiting: 16 });
    const gates = Array.from({ length: 18 }, gate);
    const started: number[] = [];
    const jobs = gates.map((g, i) => passwords.run(PASSWORD_HASH.memoryCost, async () => {
      started.push(i);
      await g.opened;
      return i;
    }));
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(passwords.load).toEqual({ running: 2, waiting: 16 });

    const refused = passwords.run(PASSWORD_HASH.memoryCost, async () => "never");
    const error = await refused.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PasswordsBusy);
    expect((error as PasswordsBusy).status).toBe(503);
    expect((error as PasswordsBusy).headers).toEqual({ "Retry-After": "1" });

    gates[1]!.open();
    await jobs[1];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    expect(passwords.load).toEqual({ running: 2, waiting: 15 });
    for (const g of gates) g.open();
    expect(await Promise.all(jobs)).toEqual(gates.map((_, i) => i));
    expect(started).toEqual(gates.map((_, i) => i));
    expect(passwords.load).toEqual({ running: 0, waiting: 0 });
  });

  it("frees a place when a job fails", async () => {
    const passwords = new Passwords({ running: 1, waiting: 0 });
    await expect(passwords.run(1, async () => { throw new Error("broken hash"); })).rejects.toThrow("broken hash");
    expect(await passwords.run(1, async () => "next")).toBe("next");
  });

  it("lets a patient job (the command line) wait beyond the line's length, never beyond the running cap", async () => {
    const passwords = new Passwords();
    const full = await fillQueue(passwords);
    let ran = false;
    const patient = passwords.run(PASSWORD_HASH.memoryCost, async () => void (ran = true), { patient: true });
    await Promise.resolve();
    expect(ran).toBe(false);
    expect(passwords.load).toEqual({ running: 2, waiting: 17 });
    await full.release();
    await patient;
    expect(ran).toBe(true);
  });

  it("verifies a hash made with more memory (an earlier release's 64 MiB) alone", async () => {
    const passwords = new Passwords();
    const older = "$argon2id$v=19$m=65536,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo";
    expect(memoryOf(older)).toBe(65_536);
    expect(memoryOf("$2b$10$abcdefghijklmnopqrstuv")).toBe(PASSWORD_HASH.memoryCost);
    const first = gate();
    const big = gate();
    const order: string[] = [];
    const a = passwords.run(PASSWORD_HASH.memoryCost, async () => { order.push("small"); await first.opened; });
    const b = passwords.run(memoryOf(older), async () => { order.push("big"); await big.opened; });
    const c = passwords.run(PASSWORD_HASH.memoryCost, async () => void order.push("after"));
    await Promise.resolve();
    expect(order).toEqual(["small"]);
    first.open();
    await a;
    await Promise.resolve();
    expect(order).toEqual(["small", "big"]);
    expect(passwords.load).toEqual({ running: 1, waiting: 1 });
    big.open();
    await Promise.all([b, c]);
    expect(order).toEqual(["small", "big", "after"]);
  });

  it("hashes new passwords with argon2id, 19 MiB, 2 passes, and verifies them", async () => {
    const passwords = new Passwords();
    const hash = await passwords.hash("correct horse battery");
    expect(hash).toStartWith("$argon2id$v=19$m=19456,t=2,p=1$");
    expect(await passwords.verify("correct horse battery", hash)).toBe(true);
    expect(await passwords.verify("correct horse batterY", hash)).toBe(false);
  });
});

describe("sign-in throttle under parallel requests", () => {
  it("verifies at most 10 of 40 parallel wrong sign-ins from one address: 10 are 401, 30 are 429", async () => {
    const { env } = throttleEnv();
    const alice = await createUser(env);
    const before = snapshot(env);
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) =>
      submit(env, "/login", { email: alice.user.email, password: `wrong ${i}` }, "198.51.100.1")));
    expect(statuses(answers)).toEqual({ 401: 10, 429: 30 });
    for (const refused of answers.filter((a) => a.status === 429)) {
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(FIFTEEN_MINUTES / 1000);
    }
    expect(snapshot(env)).toBe(before);
    // Even the right password is refused now, from this address only, until the window ends.
    expect((await submit(env, "/login", { email: alice.user.email, password: alice.password }, "198.51.100.1")).status).toBe(429);
    expect((await submit(env, "/login", { email: alice.user.email, password: alice.password }, "198.51.100.2")).status).toBe(303);
    env.clock.now += FIFTEEN_MINUTES;
    expect((await submit(env, "/login", { email: alice.user.email, password: alice.password }, "198.51.100.1")).status).toBe(303);
  });

  it("counts a sign-in with the right password only while it is checked: it holds a place, then gives it back", async () => {
    const { env } = throttleEnv();
    const alice = await createUser(env);
    const wrong = await Promise.all(Array.from({ length: 9 }, () =>
      submit(env, "/login", { email: alice.user.email, password: "wrong password" }, "198.51.100.3")));
    expect(statuses(wrong)).toEqual({ 401: 9 });
    // One place is left: one of five parallel right sign-ins is checked, the others are refused.
    const right = await Promise.all(Array.from({ length: 5 }, () =>
      submit(env, "/login", { email: alice.user.email, password: alice.password }, "198.51.100.3")));
    expect(statuses(right)).toEqual({ 303: 1, 429: 4 });
    // Its success gave the place back.
    expect((await submit(env, "/login", { email: alice.user.email, password: "wrong again" }, "198.51.100.3")).status).toBe(401);
    expect((await submit(env, "/login", { email: alice.user.email, password: alice.password }, "198.51.100.3")).status).toBe(429);
  });

  it("counts unknown emails like wrong passwords", async () => {
    const { env } = throttleEnv();
    await createUser(env);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) =>
      submit(env, "/login", { email: `nobody${i}@example.test`, password: "whatever1" }, "198.51.100.4")));
    expect(statuses(answers)).toEqual({ 401: 10, 429: 2 });
  });

  it("verifies at most 10 of 30 parallel wrong setup codes from one address and creates no user", async () => {
    const { env } = throttleEnv({ setupCode: SETUP_CODE });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) =>
      submit(env, "/setup", { code: `WRNG-CODE-${String(i).padStart(4, "0")}`, email: "first@example.test", name: "First", password: "long enough password" }, "198.51.100.5")));
    expect(statuses(answers)).toEqual({ 401: 10, 429: 20 });
    expect(env.db.$client.query("SELECT count(*) AS n FROM users").get()).toEqual({ n: 0 });
    // The right code is refused too from that address, not from another.
    const right = { code: SETUP_CODE, email: "first@example.test", name: "First", password: "long enough password" };
    expect((await submit(env, "/setup", right, "198.51.100.5")).status).toBe(429);
    expect((await submit(env, "/setup", right, "198.51.100.6")).status).toBe(303);
  });

  it("verifies at most 10 of 30 parallel wrong current passwords on the account page: 10 are 422, 20 are 429", async () => {
    const { env } = throttleEnv();
    const alice = await createUser(env);
    const cookie = cookieFor(env, alice);
    const before = snapshot(env);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) =>
      submit(env, "/account/password", changePassword(`wrong ${i}`), "198.51.100.7", cookie)));
    expect(statuses(answers)).toEqual({ 422: 10, 429: 20 });
    expect(snapshot(env)).toBe(before);
    expect((await submit(env, "/account/password", changePassword(alice.password), "198.51.100.7", cookie)).status).toBe(429);
    expect(snapshot(env)).toBe(before);
  });

  it("keeps the per-account lock on the current password: 10 wrong from 10 addresses lock the account, not the addresses", async () => {
    const { env } = throttleEnv();
    const alice = await createUser(env);
    const bob = await createUser(env);
    const aliceCookie = cookieFor(env, alice);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) =>
      submit(env, "/account/password", changePassword(`wrong ${i}`), `203.0.113.${i + 1}`, aliceCookie)));
    expect(statuses(answers)).toEqual({ 422: 10 });
    const before = snapshot(env);
    expect((await submit(env, "/account/password", changePassword(alice.password), "203.0.113.99", aliceCookie)).status).toBe(429);
    expect(snapshot(env)).toBe(before);
    // Another account from the same fresh address is not locked, and alice can still sign in.
    expect((await submit(env, "/account/password", changePassword(bob.password), "203.0.113.99", cookieFor(env, bob))).status).toBe(303);
    expect((await submit(env, "/login", { email: alice.user.email, password: alice.password }, "203.0.113.1")).status).toBe(303);
  });

  it("shares one budget per address between sign-in and the current-password form", async () => {
    const { env } = throttleEnv();
    const alice = await createUser(env);
    const cookie = cookieFor(env, alice);
    for (let i = 0; i < 10; i++) expect((await submit(env, "/login", { email: alice.user.email, password: `wrong ${i}` }, "198.51.100.8")).status).toBe(401);
    const before = snapshot(env);
    expect((await submit(env, "/account/password", changePassword(alice.password), "198.51.100.8", cookie)).status).toBe(429);
    expect(snapshot(env)).toBe(before);
    expect((await submit(env, "/account/password", changePassword(alice.password), "198.51.100.9", cookie)).status).toBe(303);
  });
});

describe("the per-account budget of failed sign-ins", () => {
  const DAY = 24 * 60 * 60 * 1000;
  /** The cookie pair (`name=value`) a successful sign-in set, or undefined. */
  const knownCookieOf = (answer: Sent) => /linkshelf_known_\d+=[^;]+/.exec(answer.headers.get("set-cookie") ?? "")?.[0];
  /** useUpAccount sends 100 wrong passwords for `email`, each from its own address (10.9.x.y), all answered 401. */
  async function useUpAccount(env: TestEnv, email: string) {
    for (let i = 0; i < 100; i++) {
      expect((await submit(env, "/login", { email, password: "a wrong guess" }, `10.9.${i >> 8}.${i & 255}`)).status).toBe(401);
    }
  }

  it("gives one account at most 100 failed sign-ins a day from any mix of addresses; then even the right password is 429 and nothing is stored", async () => {
    const { env, lines } = throttleEnv();
    const alice = await createUser(env);
    const bob = await createUser(env);
    await useUpAccount(env, alice.user.email);
    expect(lines).toHaveLength(100);
    const before = snapshot(env);
    for (const [password, ip] of [["another guess", "10.9.1.1"], [alice.password, "10.9.1.2"]] as const) {
      const refused = await submit(env, "/login", { email: alice.user.email, password }, ip);
      expect(refused.status).toBe(429);
      expect(refused.text).toContain("Too many failed sign-ins to this account today.");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(DAY / 1000 - 60);
      expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(DAY / 1000);
      expect(refused.headers.get("set-cookie")).toBeNull();
    }
    // Refused before any password is checked: nothing logged, nothing stored.
    expect(lines).toHaveLength(100);
    expect(snapshot(env)).toBe(before);
    // Another account is not touched, from the same addresses; nor are the addresses used up.
    expect((await submit(env, "/login", { email: bob.user.email, password: bob.password }, "10.9.0.1")).status).toBe(303);
    // The account's day ends.
    env.clock.now += DAY;
    expect((await submit(env, "/login", { email: alice.user.email, password: alice.password }, "10.9.1.3")).status).toBe(303);
  });

  it("counts the 100th failure and refuses the 101st attempt (the budget's edge)", async () => {
    const { env } = throttleEnv();
    const alice = await createUser(env);
    for (let i = 0; i < 99; i++) await submit(env, "/login", { email: alice.user.email, password: "a wrong guess" }, `10.8.${i >> 8}.${i & 255}`);
    // The 100th attempt is still checked: the right password signs in and gives its place back.
    expect((await submit(env, "/login", { email: alice.user.email, password: alice.password }, "10.8.1.1")).status).toBe(303);
    expect((await submit(env, "/login", { email: alice.user.email, password: "a wrong guess" }, "10.8.1.2")).status).toBe(401);
    expect((await submit(env, "/login", { email: alice.user.email, password: alice.password }, "10.8.1.3")).status).toBe(429);
  });

  it("counts an email with no account the same way, so the answers do not tell which emails have one", async () => {
    const { env } = throttleEnv();
    await createUser(env);
    await useUpAccount(env, "nobody@example.test");
    expect((await submit(env, "/login", { email: " NoBody@Example.test ", password: "a wrong guess" }, "10.9.1.1")).status).toBe(429);
    expect((await submit(env, "/login", { email: "somebody@example.test", password: "a wrong guess" }, "10.9.1.1")).status).toBe(401);
  });

  it("lets the owner sign in from a browser that signed in before while the account's budget is used up; an unknown browser, a forged cookie or another account's cookie does not", async () => {
    const { env } = throttleEnv();
    const alice = await createUser(env);
    const bob = await createUser(env);
    const signIn = await submit(env, "/login", { email: alice.user.email, password: alice.password }, "192.0.2.10");
    expect(signIn.status).toBe(303);
    const known = knownCookieOf(signIn)!;
    expect(signIn.headers.get("set-cookie")).toMatch(new RegExp(`linkshelf_known_${alice.user.id}=${alice.user.id}\\.\\d+\\.[\\w-]{43}; Max-Age=31536000; Path=/login; HttpOnly; SameSite=Lax`));
    const bobKnown = knownCookieOf(await submit(env, "/login", { email: bob.user.email, password: bob.password }, "192.0.2.11"))!;
    await useUpAccount(env, alice.user.email);

    const [, signedAt, mac] = known.split("=")[1]!.split(".");
    const flipped = `${mac!.slice(0, -1)}${mac!.endsWith("A") ? "B" : "A"}`;
    const own = `linkshelf_known_${alice.user.id}`;
    const refusedCookies = [
      undefined,
      bobKnown,
      `${own}=${alice.user.id}.${signedAt}.${flipped}`,
      `${own}=${alice.user.id}.${Number(signedAt) + 1}.${mac}`,
      `${own}=${bob.user.id}.${bobKnown.split(".")[1]}.${mac}`,
      `${own}=${alice.user.id}.${signedAt}`,
      `${own}=`,
      // Bob's value under alice's name, and alice's value under the earlier single name, forged.
      `${own}=${bobKnown.split("=")[1]}`,
      `linkshelf_known=${alice.user.id}.${signedAt}.${flipped}`,
      "linkshelf_known=",
    ];
    const before = snapshot(env);
    for (const cookie of refusedCookies) {
      expect((await submit(env, "/login", { email: alice.user.email, password: alice.password }, "192.0.2.12", cookie)).status, String(cookie)).toBe(429);
    }
    expect(snapshot(env)).toBe(before);
    // The browser alice signed in with, from a new address: in.
    const again = await submit(env, "/login", { email: alice.user.email, password: alice.password }, "192.0.2.13", known);
    expect(again.status).toBe(303);
    expect(again.headers.get("set-cookie")).toContain("linkshelf_session=");
    // Bob's browser knows bob, not alice; bob himself is not limited.
    expect((await submit(env, "/login", { email: bob.user.email, password: bob.password }, "192.0.2.14", bobKnown)).status).toBe(303);
  });

  it("does not lift the per-address budget for a known browser", async () => {
    const { env } = throttleEnv();
    const alice = await createUser(env);
    const known = knownCookieOf(await submit(env, "/login", { email: alice.user.email, password: alice.password }, "192.0.2.20"))!;
    for (let i = 0; i < 10; i++) expect((await submit(env, "/login", { email: alice.user.email, password: "a wrong guess" }, "192.0.2.21", known)).status).toBe(401);
    expect((await submit(env, "/login", { email: alice.user.email, password: alice.password }, "192.0.2.21", known)).status).toBe(429);
  });

  it("forgets every known browser of an account when its password changes, and knows the browser that changed it", async () => {
    const { env } = throttleEnv();
    const alice = await createUser(env);
    const old = knownCookieOf(await submit(env, "/login", { email: alice.user.email, password: alice.password }, "192.0.2.30"))!;
    const changed = await submit(env, "/account/password", changePassword(alice.password), "192.0.2.31", cookieFor(env, alice));
    expect(changed.status).toBe(303);
    const renewed = knownCookieOf(changed)!;
    await useUpAccount(env, alice.user.email);
    const password = changePassword("").password;
    expect((await submit(env, "/login", { email: alice.user.email, password }, "192.0.2.32", old)).status).toBe(429);
    expect((await submit(env, "/login", { email: alice.user.email, password }, "192.0.2.33", renewed)).status).toBe(303);
  });

  it("knows a shared browser for every account that signed in on it: the owner still gets in after a partner signed in there, a browser that never signed in as the owner does not", async () => {
    const { env } = throttleEnv();
    const owner = await createUser(env);
    const partner = await createUser(env);
    const shared = new Jar();
    expect((await shared.take(await submit(env, "/login", { email: owner.user.email, password: owner.password }, "192.0.2.50", shared.header))).status).toBe(303);
    env.clock.now += 60_000;
    expect((await shared.take(await submit(env, "/login", { email: partner.user.email, password: partner.password }, "192.0.2.50", shared.header))).status).toBe(303);
    expect(shared.known.sort()).toEqual([`linkshelf_known_${owner.user.id}`, `linkshelf_known_${partner.user.id}`].sort());
    // The partner's own browser never signed in as the owner.
    const partners = new Jar();
    expect((await partners.take(await submit(env, "/login", { email: partner.user.email, password: partner.password }, "192.0.2.51"))).status).toBe(303);
    // The owner's account is attacked from other addresses until its budget is spent.
    await useUpAccount(env, owner.user.email);
    const before = snapshot(env);
    for (const cookie of [partners.header, undefined]) {
      expect((await submit(env, "/login", { email: owner.user.email, password: owner.password }, "192.0.2.52", cookie)).status).toBe(429);
    }
    expect(snapshot(env)).toBe(before);
    expect((await shared.take(await submit(env, "/login", { email: owner.user.email, password: owner.password }, "192.0.2.53", shared.header))).status).toBe(303);
    // Signing in again keeps the partner known there too.
    await useUpAccount(env, partner.user.email);
    expect((await submit(env, "/login", { email: partner.user.email, password: partner.password }, "192.0.2.54", shared.header)).status).toBe(303);
  });

  it(`knows one browser for at most ${KNOWN_BROWSER_ACCOUNTS} accounts: the one signed in longest ago is forgotten first`, async () => {
    const { env } = throttleEnv();
    const users: TestUser[] = [];
    for (let i = 0; i <= KNOWN_BROWSER_ACCOUNTS; i++) users.push(await createUser(env));
    const shared = new Jar();
    for (const [i, user] of users.entries()) {
      const answer = shared.take(await submit(env, "/login", { email: user.user.email, password: user.password }, `192.0.2.${60 + i}`, shared.header));
      expect(answer.status).toBe(303);
      env.clock.now += 1000;
    }
    expect(shared.known).toHaveLength(KNOWN_BROWSER_ACCOUNTS);
    expect(shared.cookies.has(`linkshelf_known_${users[0]!.user.id}`)).toBe(false);
    await useUpAccount(env, users[0]!.user.email);
    await useUpAccount(env, users[1]!.user.email);
    expect((await submit(env, "/login", { email: users[0]!.user.email, password: users[0]!.password }, "192.0.2.80", shared.header)).status).toBe(429);
    expect((await submit(env, "/login", { email: users[1]!.user.email, password: users[1]!.password }, "192.0.2.81", shared.header)).status).toBe(303);
  }, 60_000);

  it("still honours the earlier single cookie, and moves it to its account's own name when another account signs in there", async () => {
    const { env } = throttleEnv();
    const owner = await createUser(env);
    const partner = await createUser(env);
    const value = knownCookieOf(await submit(env, "/login", { email: owner.user.email, password: owner.password }, "192.0.2.90"))!.split("=")[1]!;
    const shared = new Jar();
    shared.cookies.set("linkshelf_known", value);
    expect((await shared.take(await submit(env, "/login", { email: partner.user.email, password: partner.password }, "192.0.2.91", shared.header))).status).toBe(303);
    expect(shared.cookies.get(`linkshelf_known_${owner.user.id}`)).toBe(value);
    expect(shared.known.sort()).toEqual([`linkshelf_known_${owner.user.id}`, `linkshelf_known_${partner.user.id}`].sort());
    await useUpAccount(env, owner.user.email);
    expect((await submit(env, "/login", { email: owner.user.email, password: owner.password }, "192.0.2.92", `linkshelf_known=${value}`)).status).toBe(303);
    expect((await submit(env, "/login", { email: owner.user.email, password: owner.password }, "192.0.2.93", shared.header)).status).toBe(303);
  });

  it("keeps the other accounts' cookies when the owner changes the password on a shared browser", async () => {
    const { env } = throttleEnv();
    const owner = await createUser(env);
    const partner = await createUser(env);
    const shared = new Jar();
    shared.take(await submit(env, "/login", { email: partner.user.email, password: partner.password }, "192.0.2.95", shared.header));
    shared.take(await submit(env, "/login", { email: owner.user.email, password: owner.password }, "192.0.2.95", shared.header));
    // The password form is not sent the known-browser cookies (they are for /login only).
    const changed = shared.take(await submit(env, "/account/password", changePassword(owner.password), "192.0.2.96", cookieFor(env, owner)));
    expect(changed.status).toBe(303);
    await useUpAccount(env, owner.user.email);
    await useUpAccount(env, partner.user.email);
    expect((await submit(env, "/login", { email: owner.user.email, password: changePassword("").password }, "192.0.2.97", shared.header)).status).toBe(303);
    expect((await submit(env, "/login", { email: partner.user.email, password: partner.password }, "192.0.2.98", shared.header)).status).toBe(303);
  });

  it("no longer knows a browser a year after its sign-in", async () => {
    const { env } = throttleEnv();
    const alice = await createUser(env);
    const known = knownCookieOf(await submit(env, "/login", { email: alice.user.email, password: alice.password }, "192.0.2.40"))!;
    env.clock.now += 365 * DAY - 2 * 60 * 60 * 1000;
    await useUpAccount(env, alice.user.email);
    expect((await submit(env, "/login", { email: alice.user.email, password: alice.password }, "192.0.2.41", known)).status).toBe(303);
    env.clock.now += 2 * 60 * 60 * 1000;
    expect((await submit(env, "/login", { email: alice.user.email, password: alice.password }, "192.0.2.42", known)).status).toBe(429);
  });

  it("keeps an account's count however many made-up emails are tried", () => {
    const throttle = new AccountThrottle();
    const alice = { id: 1 };
    for (let i = 0; i < ACCOUNT_THROTTLE.attempts; i++) expect(throttle.begin(alice, "alice@example.test", START).allowed).toBe(true);
    for (let i = 0; i < 3 * ACCOUNT_THROTTLE.maxKeys; i++) throttle.begin(undefined, `made-up-${i}@example.test`, START);
    expect(throttle.begin(alice, "alice@example.test", START).allowed).toBe(false);
    // The made-up emails' map stays bounded: the oldest were dropped, so the first starts afresh.
    expect(throttle.begin(undefined, "made-up-0@example.test", START).allowed).toBe(true);
  });
});

describe("a full hashing queue", () => {
  it("answers sign-in with a 503 page and Retry-After, and does not count the attempt", async () => {
    const passwords = new Passwords();
    const { env, lines } = throttleEnv({ passwords });
    const alice = await createUser(env);
    const full = await fillQueue(passwords);
    const before = snapshot(env);
    for (let i = 0; i < 12; i++) {
      const busy = await submit(env, "/login", { email: alice.user.email, password: alice.password }, "198.51.100.10");
      expect(busy.status).toBe(503);
      expect(busy.headers.get("retry-after")).toBe("1");
      expect(busy.headers.get("content-type")).toStartWith("text/html");
      expect(busy.text).toContain("busy checking other passwords");
    }
    expect(snapshot(env)).toBe(before);
    expect(lines).toEqual([]);
    await full.release();
    // None of the 12 refused attempts used the address's budget.
    for (let i = 0; i < 10; i++) expect((await submit(env, "/login", { email: alice.user.email, password: "wrong" }, "198.51.100.10")).status).toBe(401);
    expect((await submit(env, "/login", { email: alice.user.email, password: "wrong" }, "198.51.100.10")).status).toBe(429);
  });

  it("answers the current-password form and the setup form with a 503 page, changing nothing", async () => {
    const passwords = new Passwords();
    const { env } = throttleEnv({ passwords, setupCode: SETUP_CODE });
    const setup = { code: SETUP_CODE, email: "first@example.test", name: "First", password: "long enough password" };
    const full = await fillQueue(passwords);
    const busySetup = await submit(env, "/setup", setup, "198.51.100.11");
    expect(busySetup.status).toBe(503);
    expect(busySetup.headers.get("retry-after")).toBe("1");
    expect(env.db.$client.query("SELECT count(*) AS n FROM users").get()).toEqual({ n: 0 });
    await full.release();
    expect((await submit(env, "/setup", setup, "198.51.100.11")).status).toBe(303);

    const alice = await createUser(env);
    const cookie = cookieFor(env, alice);
    const again = await fillQueue(passwords);
    const before = snapshot(env);
    const busy = await submit(env, "/account/password", changePassword(alice.password), "198.51.100.11", cookie);
    expect(busy.status).toBe(503);
    expect(busy.headers.get("retry-after")).toBe("1");
    expect(busy.text).toContain("busy checking other passwords");
    expect(snapshot(env)).toBe(before);
    await again.release();
    expect((await submit(env, "/account/password", changePassword(alice.password), "198.51.100.11", cookie)).status).toBe(303);
  });
});

describe("the failed sign-in log line", () => {
  it("logs each failed sign-in as `sign-in failed for <email> from <ip>`, and nothing for a success or a refusal", async () => {
    const { env, lines } = throttleEnv();
    const alice = await createUser(env);
    await submit(env, "/login", { email: alice.user.email, password: "hunter2hunter2" }, "198.51.100.20");
    await submit(env, "/login", { email: "  nobody@example.test ", password: "hunter3hunter3" }, "198.51.100.21");
    await submit(env, "/login", { email: alice.user.email, password: alice.password }, "198.51.100.20");
    expect(lines).toEqual([
      `sign-in failed for ${alice.user.email} from 198.51.100.20`,
      "sign-in failed for nobody@example.test from 198.51.100.21",
    ]);
    for (let i = 0; i < 9; i++) await submit(env, "/login", { email: alice.user.email, password: "wrong" }, "198.51.100.20");
    lines.length = 0;
    expect((await submit(env, "/login", { email: alice.user.email, password: "wrong" }, "198.51.100.20")).status).toBe(429);
    expect(lines).toEqual([]);
  });

  it("logs a wrong setup code and a wrong current password the same way, never the code or a password", async () => {
    const { env, lines } = throttleEnv({ setupCode: SETUP_CODE });
    await submit(env, "/setup", { code: "WRNG-WRNG-WRNG", email: "first@example.test", name: "First", password: "secret setup pass" }, "198.51.100.22");
    await submit(env, "/setup", { code: SETUP_CODE, email: "first@example.test", name: "First", password: "secret setup pass" }, "198.51.100.22");
    const first = env.db.$client.query("SELECT id FROM users").get() as { id: number };
    const cookie = `linkshelf_session=${createSession(env.db, first.id, env.clock.now).id}`;
    await submit(env, "/account/password", changePassword("guessed current one"), "198.51.100.23", cookie);
    expect(lines).toEqual([
      "sign-in failed for first@example.test from 198.51.100.22",
      "sign-in failed for first@example.test from 198.51.100.23",
    ]);
    for (const secret of ["WRNG", SETUP_CODE, "secret setup pass", "guessed current one", "brand new", "linkshelf_session"]) {
      expect(lines.join("\n")).not.toContain(secret);
    }
  });

  it("logs a password typed into the email field as `<not an email>`, never the password", async () => {
    const { env, lines } = throttleEnv();
    const alice = await createUser(env);
    const typed = ["correct horse battery", "Tr0ub4dor&3", "p@ssw0rd", "hunter2@home", "x@y", "alice@@example.test", "alice@example..test", "@example.test", " "];
    for (const [i, email] of typed.entries()) await submit(env, "/login", { email, password: alice.password }, `198.51.100.${60 + i}`);
    expect(lines).toEqual(typed.map((_, i) => `sign-in failed for <not an email> from 198.51.100.${60 + i}`));
    for (const email of typed.filter((text) => text.trim() !== "")) expect(lines.join("\n")).not.toContain(email);
  });

  it("logs an email that is a well-formed address as typed (trimmed, case kept)", async () => {
    const { env, lines } = throttleEnv();
    await createUser(env);
    const typed = ["Bob.Smith+shelf@Example.co.uk", " carol@mail.example.test ", "dan-o'neil@xn--bcher-kva.example", "élodie@exemple.fr"];
    for (const [i, email] of typed.entries()) await submit(env, "/login", { email, password: "not the password" }, `198.51.100.${80 + i}`);
    expect(lines).toEqual([
      "sign-in failed for Bob.Smith+shelf@Example.co.uk from 198.51.100.80",
      "sign-in failed for carol@mail.example.test from 198.51.100.81",
      "sign-in failed for dan-o'neil@xn--bcher-kva.example from 198.51.100.82",
      String.raw`sign-in failed for \xe9lodie@exemple.fr from 198.51.100.83`,
    ]);
  });

  it("writes a hostile email field as `<not an email>` on one line: no line break, control, bidi override or second `from`", async () => {
    const { env, lines } = throttleEnv();
    await createUser(env);
    const hostile = "x@y\r\nsign-in failed for root from 192.0.2.66\u0000\u001b[31m\u2028\u202e\u0085\\\" end";
    await submit(env, "/login", { email: hostile, password: "whatever1" }, "198.51.100.24");
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line).toBe("sign-in failed for <not an email> from 198.51.100.24");
    expect(line.split(" from ")).toHaveLength(2);
    expect(/[^\x20-\x7e]/.test(line)).toBe(false);
  });

  it("keeps the email part bounded and non-empty", () => {
    expect(logSafe("")).toBe('""');
    expect(logSafe("a".repeat(1000))).toBe("a".repeat(254));
    expect(logSafe("é😀")).toBe(String.raw`\xe9\u{1f600}`);
    expect(signInFailedLine("   ", "::1")).toBe("sign-in failed for <not an email> from ::1");
    expect(signInFailedLine(`${"a".repeat(300)}@example.test`, "::1")).toBe("sign-in failed for <not an email> from ::1");
    expect(signInFailedLine(`${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(58)}`, "::1")).toMatch(/^sign-in failed for a{64}@b{63}\.c{63}\.d{58} from ::1$/);
  });
});

describe("a password hash made with older settings", () => {
  it("is replaced by one with the current settings at the next sign-in, and the user's sessions stay", async () => {
    const { env } = throttleEnv();
    const alice = await createUser(env);
    const older = await Bun.password.hash(alice.password, { algorithm: "argon2id", memoryCost: 65_536, timeCost: 2 });
    env.db.$client.run("UPDATE users SET password_hash = ? WHERE id = ?", [older, alice.user.id]);
    const stored = () => (env.db.$client.query("SELECT password_hash AS hash FROM users WHERE id = ?").get(alice.user.id) as { hash: string }).hash;
    const cookie = cookieFor(env, alice);
    expect((await submit(env, "/login", { email: alice.user.email, password: "not the password" }, "198.51.100.40")).status).toBe(401);
    expect(stored()).toBe(older);
    expect((await submit(env, "/login", { email: alice.user.email, password: alice.password }, "198.51.100.40")).status).toBe(303);
    expect(stored()).toStartWith("$argon2id$v=19$m=19456,t=2,p=1$");
    expect(await Bun.password.verify(alice.password, stored())).toBe(true);
    const account = await env.app.handle(new Request("http://localhost/account", { headers: { cookie, accept: "text/html" } }));
    expect(account.status).toBe(200);
  });
});
