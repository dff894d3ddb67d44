import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import { passwords as processPasswords, PasswordsBusy } from "../auth/passwords";
import { startBrowserSession } from "../auth/routes";
import { SignInThrottle, signInFailedLine } from "../auth/throttle";
import { checkTokenName } from "../auth/secrets";
import type { Shelf } from "../shelf/shelf";
import { clientAddress } from "../request/arrival";
import { parseId } from "../ids";
import { ACCOUNT_JS, accountPage, type AccountOptions } from "../pages/account";
import { fieldErrorsOf } from "../pages/form";
import { formField } from "../request/form-body";
import { htmlResponse } from "../pages/html";
import { Rules } from "../rules";
import { checkPassword, setPassword } from "../users/service";
import { messageShell, seeOther, type PageGuard } from "./guard";
import { noticeOf, withNotice } from "./notices";
import { Pending } from "./pending";


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
 * it stays signed in; 10 wrong current passwords in 15 minutes lock the form, per account and
 * per address, sharing the address's budget with sign-in), list, create and revoke API tokens
 * (a new token is shown once), list the browser
 * extensions the user allowed and remove one (with the tokens minted for it), sign out.
 */
export function accountPages(deps: AppDeps, guard: PageGuard, signIns: SignInThrottle) {
  const { db, clock, config, passwords = processPasswords, log = console.error } = deps;
  const fresh = newTokens();
  // Someone at an unlocked browser (or with a stolen session) must not be able to guess the
  // current password at argon2 speed: the sign-in form's limit, per account as well.
  const wrongCurrent = new SignInThrottle();
  const page = (shelf: Shelf, options: Omit<AccountOptions, "user" | "tokens" | "grants"> = {}, status = 200) =>
    htmlResponse(accountPage({ user: shelf.user, tokens: shelf.tokens.list(), grants: shelf.extensions.list(), ...options }), { status, script: true });

  return new Elysia()
    .get("/assets/account.js", () => new Response(ACCOUNT_JS, {
      headers: { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff" },
    }))
    .get("/account", ({ request, query }) => guard.page(request, (shelf) =>
      page(shelf, { notice: noticeOf(query.done), newToken: fresh.take(query.token, shelf.user.id, clock()) })))
    .post("/account/password", ({ request, body, cookie }) => guard.form(request, async (shelf) => {
      const { user } = shelf;
      const now = clock();
      const ip = clientAddress(request, { config, peerAddress: deps.peerAddress });
      const tooMany = (retryAfter: number) =>
        messageShell(user, "Too many attempts", "The current password was wrong too many times. Try again later.", {
          status: 429,
          headers: { "Retry-After": String(retryAfter) },
        });
      // Both counted before the password is checked, so parallel guesses cannot get past them.
      const byAddress = signIns.begin(ip, now);
      if (!byAddress.allowed) return tooMany(byAddress.retryAfter);
      const byAccount = wrongCurrent.begin(`user:${user.id}`, now);
      if (!byAccount.allowed) {
        byAddress.release();
        return tooMany(byAccount.retryAfter);
      }
      const busy = (error: PasswordsBusy) => messageShell(user, "Busy", error.message, { status: error.status, headers: error.headers });
      const rules = new Rules();
      const password = formField(body, "password");
      let valid: boolean;
      try {
        valid = await passwords.verify(formField(body, "current"), user.passwordHash);
      } catch (error) {
        byAddress.release();
        byAccount.release();
        if (error instanceof PasswordsBusy) return busy(error);
        throw error;
      }
      if (valid) {
        byAddress.release();
        byAccount.release();
      } else {
        log(signInFailedLine(user.email, ip));
        rules.fail("/current", "The current password is not right");
      }
      checkPassword(rules, password);
      if (formField(body, "confirm") !== password) rules.fail("/confirm", "The two new passwords differ");
      // Passwords are never written back into the page: the fields come back empty.
      if (rules.errors.length > 0) return page(shelf, { passwordErrors: fieldErrorsOf(rules.errors) }, 422);
      try {
        await setPassword(db, user.id, password, { passwords });
      } catch (error) {
        if (error instanceof PasswordsBusy) return busy(error);
        throw error;
      }
      startBrowserSession(deps, request, cookie, user.id, clock());
      return seeOther(withNotice("/account", "password-changed"));
    }))
    .post("/account/tokens", ({ request, body }) => guard.form(request, (shelf) => {
      const typed = formField(body, "name");
      const rules = new Rules();
      const name = checkTokenName(rules, typed);
      if (rules.errors.length > 0) return page(shelf, { tokenErrors: fieldErrorsOf(rules.errors), tokenName: typed }, 422);
      const now = clock();
      const { token } = shelf.tokens.create(name, now);
      return seeOther(`/account?token=${fresh.put(shelf.user.id, { name, token }, now)}`);
    }))
    .post("/account/tokens/:id/revoke", ({ request, params }) => guard.form(request, (shelf) => {
      shelf.tokens.revoke(parseId(params.id));
      return seeOther(withNotice("/account", "token-revoked"));
    }))
    .post("/account/extensions/:id/remove", ({ request, params }) => guard.form(request, (shelf) => {
      shelf.extensions.remove(parseId(params.id));
      return seeOther(withNotice("/account", "extension-removed"));
    }));
}
