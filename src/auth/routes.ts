import { Elysia } from "elysia";
import type { AppDeps } from "../app";
import { formBody } from "../body";
import { AppError } from "../errors";
import { clientAddress, isCrossSitePost, ownOrigin, requestOrigin, safeNext } from "../http";
import { loginPage, setupPage } from "../pages/auth";
import { formField as field } from "../pages/form";
import { messagePage } from "../pages/layout";
import { htmlResponse } from "../pages/html";
import { FixedWindowCounter } from "../ratelimit/window";
import { countUsers, createUser, findUserByEmail } from "../users/service";
import { resolveUser, sessionIdOf } from "./identity";
import { createSession, deleteSession, SESSION_COOKIE, SESSION_TTL_MS } from "./sessions";
import { setupCodeMatches } from "./setup";

export const LOGIN_THROTTLE = { failures: 10, windowMs: 15 * 60 * 1000 } as const;
const LOGIN_FAILED = "The email or password is not right.";
/** Verified against when the email is unknown, so both failures take the same time. */
let dummyHash: Promise<string> | undefined;
const unknownUserHash = () => (dummyHash ??= Bun.password.hash("linkshelf-no-such-user"));

/** The part of Elysia's cookie jar a session needs. */
export type CookieJar = Record<string, { set(options: object): unknown }>;

/**
 * startBrowserSession starts a session for a user and sets its cookie on the response:
 * HttpOnly, SameSite=Lax, Path=/, 30 days, Secure when the request came over HTTPS.
 */
export function startBrowserSession(
  { db, config }: Pick<AppDeps, "db" | "config">,
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
    secure: requestOrigin(request, config.trustProxy).scheme === "https",
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
  });
}

/** authPages: the sign-in, sign-out and first-run setup pages. */
export function authPages({ db, config, clock, setupCode }: AppDeps) {
  const failures = new FixedWindowCounter(LOGIN_THROTTLE.windowMs, 10_000);

  const forbidden = () =>
    htmlResponse(messagePage("Request refused", "This form was sent from another site."), { status: 403 });
  const throttled = (resetAt: number, now: number) =>
    htmlResponse(messagePage("Too many attempts", "Too many failed attempts from this address. Try again later."), {
      status: 429,
      headers: { "Retry-After": String(Math.max(1, Math.ceil((resetAt - now) / 1000))) },
    });
  const seeOther = (location: string) => new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });

  /** A refusal of a browser form: the cross-site check, then the failure throttle. */
  const refuseForm = (request: Request, ip: string, now: number): Response | undefined => {
    if (isCrossSitePost(request, config.trustProxy)) return forbidden();
    const window = failures.peek(ip, now);
    if (window && window.count >= LOGIN_THROTTLE.failures) return throttled(window.resetAt, now);
    return undefined;
  };

  /** True while the server waits for its first account at `/setup` (the code is in its log). */
  const firstRun = () => setupCode !== undefined && countUsers(db) === 0;

  const startSession = (request: Request, cookie: CookieJar, userId: number, now: number) =>
    startBrowserSession({ db, config }, request, cookie, userId, now);

  return new Elysia()
    .use(formBody())
    .get("/login", ({ request, query }) => {
      const next = safeNext(query.next, ownOrigin(request, config.trustProxy));
      if (resolveUser(db, request, clock())) return seeOther(next);
      return htmlResponse(loginPage({ next, firstRun: firstRun() }));
    })
    .post("/login", async ({ request, body, server, cookie }) => {
      const now = clock();
      const ip = clientAddress(request, server, config.trustProxy);
      const refused = refuseForm(request, ip, now);
      if (refused) return refused;
      const email = field(body, "email");
      const next = safeNext(field(body, "next"), ownOrigin(request, config.trustProxy));
      const user = email.trim() === "" ? undefined : findUserByEmail(db, email);
      const valid = await Bun.password.verify(field(body, "password"), user?.passwordHash ?? (await unknownUserHash()));
      if (!user || !valid) {
        failures.hit(ip, now);
        return htmlResponse(loginPage({ next, email, error: LOGIN_FAILED, firstRun: firstRun() }), { status: 401 });
      }
      startSession(request, cookie, user.id, now);
      return seeOther(next);
    })
    .post("/logout", ({ request, cookie }) => {
      if (isCrossSitePost(request, config.trustProxy)) return forbidden();
      const sessionId = sessionIdOf(request);
      if (sessionId !== undefined) deleteSession(db, sessionId);
      cookie[SESSION_COOKIE]!.remove();
      return seeOther("/login");
    })
    .get("/setup", () => {
      if (!setupCode || countUsers(db) > 0) return htmlResponse(messagePage("Not found", "There is nothing here."), { status: 404 });
      return htmlResponse(setupPage({}));
    })
    .post("/setup", async ({ request, body, server, cookie }) => {
      if (!setupCode || countUsers(db) > 0) return htmlResponse(messagePage("Not found", "There is nothing here."), { status: 404 });
      const now = clock();
      const ip = clientAddress(request, server, config.trustProxy);
      const refused = refuseForm(request, ip, now);
      if (refused) return refused;
      const input = { email: field(body, "email"), name: field(body, "name"), password: field(body, "password") };
      if (!setupCodeMatches(setupCode, field(body, "code"))) {
        failures.hit(ip, now);
        return htmlResponse(setupPage({ ...input, error: "The setup code is not right. It is printed in the server's log." }), { status: 401 });
      }
      try {
        const user = await createUser(db, input, now, { onlyFirst: true });
        startSession(request, cookie, user.id, now);
        return seeOther("/");
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        const details = error.errors?.map((e) => `${e.path.slice(1)}: ${e.message}`).join("; ");
        return htmlResponse(setupPage({ ...input, error: details ? `${error.message} ${details}.` : error.message }), { status: error.status });
      }
    });
}
