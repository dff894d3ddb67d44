import { Elysia } from "elysia";
import type { AppDeps } from "../app";
import { LOGIN_THROTTLE, startBrowserSession } from "../auth/routes";
import { createToken, listTokens, revokeToken } from "../auth/tokens";
import type { UserRow } from "../db/schema";
import { listGrants, removeGrant } from "../extension/grants";
import { parseId } from "../ids";
import { ACCOUNT_JS, accountPage, type AccountOptions } from "../pages/account";
import { fieldErrorsOf, formField } from "../pages/form";
import { htmlResponse } from "../pages/html";
import { FixedWindowCounter } from "../ratelimit/window";
import { Rules } from "../rules";
import { checkPassword, setPassword } from "../users/service";
import { messageShell, seeOther, type PageGuard } from "./guard";
import { noticeOf, withNotice } from "./notices";
import { Pending } from "./pending";

const TOKEN_NAME_MAX = 100;

/**
 * A freshly minted token waits in memory until the page it redirects to shows it, once: the
 * token never goes into a URL, a cookie or the database. The redirect carries the key; taking
 * it removes it, so a reload or the back button does not show it again. At most 5 minutes,
 * 1000 at once (the oldest dropped).
 */
const newTokens = () => new Pending<{ name: string; token: string }>({ ttlMs: 5 * 60 * 1000, maxEntries: 1000 });

/**
 * accountPages: `/account` to change the password (the current one is asked for; afterwards
 * every session of the user ends, as `setPassword` does, and this browser gets a new one so
 * it stays signed in; 10 wrong current passwords in 15 minutes lock the form, as sign-in does),
 * list, create and revoke API tokens (a new token is shown once), list the browser extensions
 * the user allowed and remove one (with the tokens minted for it), sign out.
 */
export function accountPages(deps: AppDeps, guard: PageGuard) {
  const { db, clock } = deps;
  const fresh = newTokens();
  // Someone at an unlocked browser (or with a stolen session) must not be able to guess the
  // current password at argon2 speed: the sign-in form's limit, per account.
  const wrongCurrent = new FixedWindowCounter(LOGIN_THROTTLE.windowMs, 10_000);
  const page = (user: UserRow, options: Omit<AccountOptions, "user" | "tokens" | "grants"> = {}, status = 200) =>
    htmlResponse(accountPage({ user, tokens: listTokens(db, user.id), grants: listGrants(db, user.id), ...options }), { status, script: true });

  return new Elysia()
    .get("/assets/account.js", () => new Response(ACCOUNT_JS, {
      headers: { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff" },
    }))
    .get("/account", ({ request, query }) => guard.page(request, (user) =>
      page(user, { notice: noticeOf(query.done), newToken: fresh.take(query.token, user.id, clock()) })))
    .post("/account/password", ({ request, body, cookie }) => guard.form(request, async (user) => {
      const now = clock();
      const key = `user:${user.id}`;
      const window = wrongCurrent.peek(key, now);
      if (window && window.count >= LOGIN_THROTTLE.failures) {
        return messageShell(user, "Too many attempts", "The current password was wrong too many times. Try again later.", {
          status: 429,
          headers: { "Retry-After": String(Math.max(1, Math.ceil((window.resetAt - now) / 1000))) },
        });
      }
      const rules = new Rules();
      const password = formField(body, "password");
      if (!(await Bun.password.verify(formField(body, "current"), user.passwordHash))) {
        wrongCurrent.hit(key, now);
        rules.fail("/current", "The current password is not right");
      }
      checkPassword(rules, password);
      if (formField(body, "confirm") !== password) rules.fail("/confirm", "The two new passwords differ");
      // Passwords are never written back into the page: the fields come back empty.
      if (rules.errors.length > 0) return page(user, { passwordErrors: fieldErrorsOf(rules.errors) }, 422);
      await setPassword(db, user.id, password);
      startBrowserSession(deps, request, cookie, user.id, clock());
      return seeOther(withNotice("/account", "password-changed"));
    }))
    .post("/account/tokens", ({ request, body }) => guard.form(request, (user) => {
      const typed = formField(body, "name");
      const rules = new Rules();
      const name = rules.text("/name", typed, 1, TOKEN_NAME_MAX);
      if (rules.errors.length > 0) return page(user, { tokenErrors: fieldErrorsOf(rules.errors), tokenName: typed }, 422);
      const now = clock();
      const { token } = createToken(db, user.id, name, now);
      return seeOther(`/account?token=${fresh.put(user.id, { name, token }, now)}`);
    }))
    .post("/account/tokens/:id/revoke", ({ request, params }) => guard.form(request, (user) => {
      if (!revokeToken(db, user.id, parseId(params.id))) return guard.notFound(user);
      return seeOther(withNotice("/account", "token-revoked"));
    }))
    .post("/account/extensions/:id/remove", ({ request, params }) => guard.form(request, (user) => {
      if (!removeGrant(db, user.id, parseId(params.id))) return guard.notFound(user);
      return seeOther(withNotice("/account", "extension-removed"));
    }));
}
