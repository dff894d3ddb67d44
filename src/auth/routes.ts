import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import { formBody, formField as field } from "../request/form-body";
import type { UserRow } from "../db/schema";
import { AppError } from "../errors";
import { clientAddress } from "../request/arrival";
import { isCrossSitePost, ownOrigin, requestOrigin, safeNext } from "../request/origin";
import { loginPage, setupPage } from "../pages/auth";
import { messagePage } from "../pages/layout";
import { htmlResponse } from "../pages/html";
import { countUsers, createUser, findUserByEmail, replacePasswordHash } from "../users/service";
import { sessionIdOf, sessionUser, withRenewedSession } from "./identity";
import { needsRehash, passwords as processPasswords, PasswordsBusy } from "./passwords";
import { createSession, deleteSession, SESSION_COOKIE, SESSION_TTL_MS } from "./sessions";
import { setupCodeMatches } from "./setup";
import { signInFailedLine, type Attempt, type SignInThrottle } from "./throttle";

const LOGIN_FAILED = "The email or password is not right.";
/** Verified against when the email is unknown, so both failures take the same time. */
let dummyHash: Promise<string> | undefined;
const unknownUserHash = () => (dummyHash ??= processPasswords.hash("linkshelf-no-such-user", { patient: true }));

/** The part of Elysia's cookie jar a session needs. */
export type CookieJar = Record<string, { set(options: object): unknown }>;

/**
 * startBrowserSession starts a session for a user and sets its cookie on the response:
 * HttpOnly, SameSite=Lax, Path=/, 30 days, Secure when the request came over HTTPS.
 */
export function startBrowserSession(
  { db, config, peerAddress }: Pick<AppDeps, "db" | "config" | "peerAddress">,
  request: Request,
  cookie: CookieJar,
  userId: number,
  now: number,
): void {
  const session = createSession(db, userId, now);
  cookie[SESSION_COOKIE]!.set({
    value: session.id,
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    secure: requestOrigin(request, { config, peerAddress }).scheme === "https",
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
  });
}

/** busyPage: the hashing queue is full (PasswordsBusy); the form may be sent again in a moment. */
function busyPage(error: PasswordsBusy): Response {
  return htmlResponse(messagePage("Busy", error.message), { status: error.status, headers: error.headers });
}

/**
 * authPages: the sign-in, sign-out and first-run setup pages. A password or setup code is
 * checked only after `signIns` has counted the attempt for the client's address (shared with
 * the current-password form): at most 10 failures per address in 15 minutes, however many
 * arrive at once. Each failure is logged as `sign-in failed for <email> from <address>`.
 */
export function authPages({ db, config, clock, setupCode, peerAddress, passwords = processPasswords, log = console.error }: AppDeps, signIns: SignInThrottle) {
  const network = { config, peerAddress };

  const forbidden = () =>
    htmlResponse(messagePage("Request refused", "This form was sent from another site."), { status: 403 });
  const throttled = (retryAfter: number) =>
    htmlResponse(messagePage("Too many attempts", "Too many failed attempts from this address. Try again later."), {
      status: 429,
      headers: { "Retry-After": String(retryAfter) },
    });
  const seeOther = (location: string) => new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });

  /** A browser form's attempt: refused when cross-site or over the throttle, else counted. */
  const beginAttempt = (request: Request, ip: string, now: number): Attempt | Response => {
    if (isCrossSitePost(request, network)) return forbidden();
    const attempt = signIns.begin(ip, now);
    return attempt.allowed ? attempt : throttled(attempt.retryAfter);
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

  return new Elysia()
    .use(formBody())
    .get("/login", ({ request, query }) => {
      const next = safeNext(query.next, ownOrigin(request, network));
      const now = clock();
      const who = sessionUser(db, request, now);
      if (who) return withRenewedSession(seeOther(next), request, network, who, now);
      return htmlResponse(loginPage({ next, firstRun: firstRun() }));
    })
    .post("/login", async ({ request, body, cookie }) => {
      const now = clock();
      const ip = clientAddress(request, network);
      const attempt = beginAttempt(request, ip, now);
      if (attempt instanceof Response) return attempt;
      const email = field(body, "email");
      const next = safeNext(field(body, "next"), ownOrigin(request, network));
      const user = email.trim() === "" ? undefined : findUserByEmail(db, email);
      let valid: boolean;
      try {
        valid = await passwords.verify(field(body, "password"), user?.passwordHash ?? (await unknownUserHash()));
      } catch (error) {
        attempt.release();
        if (error instanceof PasswordsBusy) return busyPage(error);
        throw error;
      }
      if (!user || !valid) {
        log(signInFailedLine(email, ip));
        return htmlResponse(loginPage({ next, email, error: LOGIN_FAILED, firstRun: firstRun() }), { status: 401 });
      }
      attempt.release();
      if (needsRehash(user.passwordHash)) await upgradeHash(user, field(body, "password"));
      startSession(request, cookie, user.id, now);
      return seeOther(next);
    })
    .post("/logout", ({ request, cookie }) => {
      if (isCrossSitePost(request, network)) return forbidden();
      const sessionId = sessionIdOf(request);
      if (sessionId !== undefined) deleteSession(db, sessionId);
      cookie[SESSION_COOKIE]!.remove();
      return seeOther("/login");
    })
    .get("/setup", () => {
      if (!setupCode || countUsers(db) > 0) return htmlResponse(messagePage("Not found", "There is nothing here."), { status: 404 });
      return htmlResponse(setupPage({}));
    })
    .post("/setup", async ({ request, body, cookie }) => {
      if (!setupCode || countUsers(db) > 0) return htmlResponse(messagePage("Not found", "There is nothing here."), { status: 404 });
      const now = clock();
      const ip = clientAddress(request, network);
      const attempt = beginAttempt(request, ip, now);
      if (attempt instanceof Response) return attempt;
      const input = { email: field(body, "email"), name: field(body, "name"), password: field(body, "password") };
      if (!setupCodeMatches(setupCode, field(body, "code"))) {
        log(signInFailedLine(input.email, ip));
        return htmlResponse(setupPage({ ...input, error: "The setup code is not right. It is printed in the server's log." }), { status: 401 });
      }
      attempt.release();
      try {
        const user = await createUser(db, input, now, { onlyFirst: true, passwords });
        startSession(request, cookie, user.id, now);
        return seeOther("/");
      } catch (error) {
        if (error instanceof PasswordsBusy) return busyPage(error);
        if (!(error instanceof AppError)) throw error;
        const details = error.errors?.map((e) => `${e.path.slice(1)}: ${e.message}`).join("; ");
        return htmlResponse(setupPage({ ...input, error: details ? `${error.message} ${details}.` : error.message }), { status: error.status });
      }
    });
}
