import { Elysia } from "elysia";
import type { Db } from "../db/client";
import { formBody, formField as field, submittedForm } from "../request/form-body";
import type { UserRow } from "../db/schema";
import { Conflict, NotFound, TooManyAttempts, ValidationFailed } from "../common/errors";
import { clientAddress, type Network } from "../request/arrival";
import type { LogSink } from "../request/log";
import { ownOrigin, refuseCrossSite, requestOrigin, safeNext, seeOther } from "../request/origin";
import { loginPage, setupPage } from "../pages/auth";
import { htmlResponse } from "../pages/html";
import { countUsers, createUser, findUserByEmail, findUserById, replacePasswordHash } from "../users/service";
import { sessionIdOf, sessionUser, withRenewedSession } from "./identity";
import { needsRehash, passwords as processPasswords, PasswordsBusy, type Passwords } from "../common/passwords";
import { createSession, deleteSession, SESSION_COOKIE, SESSION_TTL_MS } from "./sessions";
import { setupCodeMatches } from "./setup";
import { PAGE_ROUTE, surfaces, type Surface } from "../request/surface";
import { isKnownBrowser, KNOWN_BROWSER_PATH, rememberBrowser } from "./known-browser";
import { AccountThrottle, signInFailedLine, type Attempt, type SignInThrottle } from "./throttle";

const LOGIN_FAILED = "The email or password is not right.";
/** Verified against when the email is unknown, so both failures take the same time. */
let dummyHash: Promise<string> | undefined;
const unknownUserHash = () => (dummyHash ??= processPasswords.hash("linkshelf-no-such-user", { patient: true }));

/** The part of Elysia's cookie jar a session needs. */
export type CookieJar = Record<string, { set(options: object): unknown }>;

/**
 * startBrowserSession starts a session for a user and sets its cookie on the response:
 * HttpOnly, SameSite=Lax, Path=/, 30 days, Secure when the request came over HTTPS. The browser
 * also gets (again) the user's known-browser cookie (src/auth/known-browser.ts), made with their
 * password hash as it is now, and keeps those of the other accounts that signed in on it (up to 10).
 */
export function startBrowserSession(
  { db, config, peerAddress }: Network & { db: Db },
  request: Request,
  cookie: CookieJar,
  userId: number,
  now: number,
): void {
  const session = createSession(db, userId, now);
  const secure = requestOrigin(request, { config, peerAddress }).scheme === "https";
  const attributes = { httpOnly: true, sameSite: "lax", secure } as const;
  cookie[SESSION_COOKIE]!.set({ ...attributes, value: session.id, path: "/", maxAge: Math.floor(SESSION_TTL_MS / 1000) });
  // Read again: the password hash the cookie is signed with may have changed just now (a rehash, a new password).
  const user = findUserById(db, userId);
  if (!user) return;
  const known = rememberBrowser(request, user, now);
  for (const { name, value, maxAgeSeconds } of known.set) cookie[name]!.set({ ...attributes, value, path: KNOWN_BROWSER_PATH, maxAge: maxAgeSeconds });
  for (const name of known.remove) cookie[name]!.set({ ...attributes, value: "", path: KNOWN_BROWSER_PATH, maxAge: 0, expires: new Date(0) });
}

/**
 * What the sign-in and setup pages take: the database and the network, the clock, the one-time
 * setup code (while no user exists), the hashing queue and where failed sign-ins are logged.
 */
export interface AuthPagesDeps extends Network {
  db: Db;
  clock: () => number;
  setupCode?: string;
  passwords?: Passwords;
  log?: LogSink;
}

/**
 * authPages: the sign-in, sign-out and first-run setup pages. A password or setup code is
 * checked only after `signIns` has counted the attempt for the client's address (shared with
 * the current-password form): at most 10 failures per address in 15 minutes, however many
 * arrive at once. A sign-in is counted against its account too, at most 100 failures a day
 * from any mix of addresses, unless it comes from a browser that signed in to that account
 * before (the known-browser cookie). Each failure is logged as `sign-in failed for <email>
 * from <address>`.
 * Refusals are thrown (Forbidden for a cross-site form, TooManyAttempts over the throttle,
 * PasswordsBusy when the hashing queue is full, NotFound for `/setup` once set up) and drawn by
 * the error mapping as the one error page; a wrong password or setup code is the form again (401).
 */
export function authPages({ db, config, clock, setupCode, peerAddress, passwords = processPasswords, log = console.error }: AuthPagesDeps, signIns: SignInThrottle) {
  const network = { config, peerAddress };
  const perAccount = new AccountThrottle();

  /** A browser form's attempt: refused when cross-site (Forbidden) or over the throttle (TooManyAttempts), else counted. */
  const beginAttempt = (request: Request, ip: string, now: number): Attempt => {
    refuseCrossSite(request, network);
    const attempt = signIns.begin(ip, now);
    if (!attempt.allowed) throw new TooManyAttempts(attempt.retryAfter, "Too many failed attempts from this address. Try again later.");
    return attempt;
  };

  /** A hash made with older settings is replaced by one with the current settings; when the queue is full, next time. */
  const upgradeHash = async (user: UserRow, password: string) => {
    try {
      replacePasswordHash(db, user.id, user.passwordHash, await passwords.hash(password));
    } catch (error) {
      if (!(error instanceof PasswordsBusy)) throw error;
    }
  };

  /** True while the server waits for its first account at `/setup` (the code is in its log). */
  const firstRun = () => setupCode !== undefined && countUsers(db) === 0;

  const startSession = (request: Request, cookie: CookieJar, userId: number, now: number) =>
    startBrowserSession({ db, ...network }, request, cookie, userId, now);

  /**
   * The setup form: what creating the user refused (a rule, or the server set up meanwhile)
   * shows the form again (without the password) with the reason. Refusals of the request
   * itself (cross-site, throttled, busy, no setup) are the error page.
   */
  const setupForm: Surface = {
    ...PAGE_ROUTE,
    invalid: ({ request }, error) => {
      if (!(error instanceof ValidationFailed || error instanceof Conflict)) return error;
      const body = submittedForm(request);
      const details = error.errors?.map((e) => `${e.path.slice(1)}: ${e.message}`).join("; ");
      return htmlResponse(setupPage({ email: field(body, "email"), name: field(body, "name"), error: details ? `${error.message} ${details}.` : error.message }), { status: error.status });
    },
  };

  return new Elysia()
    .use(surfaces)
    .use(formBody())
    .get("/login", ({ request, query }) => {
      const next = safeNext(query.next, ownOrigin(request, network));
      const now = clock();
      const who = sessionUser(db, request, now);
      if (who) return withRenewedSession(seeOther(next), request, network, who, now);
      return htmlResponse(loginPage({ next, firstRun: firstRun() }));
    }, { surface: PAGE_ROUTE })
    .post("/login", async ({ request, body, cookie }) => {
      const now = clock();
      const ip = clientAddress(request, network);
      const attempt = beginAttempt(request, ip, now);
      const email = field(body, "email");
      const next = safeNext(field(body, "next"), ownOrigin(request, network));
      const user = email.trim() === "" ? undefined : findUserByEmail(db, email);
      // Counted before the password is checked, like the address; a browser the account knows is not.
      const byAccount = user && isKnownBrowser(request, user, now) ? undefined : perAccount.begin(user, email, now);
      if (byAccount && !byAccount.allowed) {
        attempt.release();
        throw new TooManyAttempts(byAccount.retryAfter, "Too many failed sign-ins to this account today. Sign in from a browser you signed in with before, or try again later.");
      }
      const releaseBoth = () => {
        attempt.release();
        byAccount?.release();
      };
      let valid: boolean;
      try {
        valid = await passwords.verify(field(body, "password"), user?.passwordHash ?? (await unknownUserHash()));
      } catch (error) {
        // A verification that did not happen (the hashing queue was full: PasswordsBusy) does not count.
        releaseBoth();
        throw error;
      }
      if (!user || !valid) {
        log(signInFailedLine(email, ip));
        return htmlResponse(loginPage({ next, email, error: LOGIN_FAILED, firstRun: firstRun() }), { status: 401 });
      }
      releaseBoth();
      if (needsRehash(user.passwordHash)) await upgradeHash(user, field(body, "password"));
      startSession(request, cookie, user.id, now);
      return seeOther(next);
    }, { surface: PAGE_ROUTE })
    .post("/logout", ({ request, cookie }) => {
      refuseCrossSite(request, network);
      const sessionId = sessionIdOf(request);
      if (sessionId !== undefined) deleteSession(db, sessionId);
      cookie[SESSION_COOKIE]!.remove();
      return seeOther("/login");
    }, { surface: PAGE_ROUTE })
    .get("/setup", () => {
      if (!firstRun()) throw new NotFound();
      return htmlResponse(setupPage({}));
    }, { surface: PAGE_ROUTE })
    .post("/setup", async ({ request, body, cookie }) => {
      if (!firstRun()) throw new NotFound();
      const now = clock();
      const ip = clientAddress(request, network);
      const attempt = beginAttempt(request, ip, now);
      const input = { email: field(body, "email"), name: field(body, "name"), password: field(body, "password") };
      if (!setupCodeMatches(setupCode!, field(body, "code"))) {
        log(signInFailedLine(input.email, ip));
        return htmlResponse(setupPage({ ...input, error: "The setup code is not right. It is printed in the server's log." }), { status: 401 });
      }
      attempt.release();
      const user = await createUser(db, input, now, { onlyFirst: true, passwords });
      startSession(request, cookie, user.id, now);
      return seeOther("/");
    }, { surface: setupForm });
}
