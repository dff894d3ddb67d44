import { Elysia } from "elysia";
import { passwords as processPasswords, type Passwords } from "../common/passwords";
import { startBrowserSession } from "../auth/sign-in-pages";
import { SignInThrottle, signInFailedLine } from "../auth/throttle";
import { checkTokenName } from "../common/token-secrets";
import type { Shelf, ShelfDb } from "../shelf/shelf";
import type { LogSink } from "../request/log";
import { clientAddress, type Network } from "../request/arrival";
import { parseId } from "../common/ids";
import { ACCOUNT_JS, accountPage, type AccountOptions } from "../pages/account";
import { fieldErrorsOf } from "../pages/form";
import { formField, submittedForm } from "../request/form-body";
import { seeOther } from "../request/origin";
import { TooManyAttempts, ValidationFailed, type AppError } from "../common/errors";
import { PAGE_ROUTE, surfaces, type Surface } from "../request/surface";
import { htmlResponse } from "../pages/html";
import { Rules } from "../common/rules";
import { checkPassword, setPassword } from "../users/service";
import type { PageGuard } from "./guard";
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
 * extensions the user allowed and remove one (with the tokens minted for it), list the recorded
 * imports (each standing one links to its undo page, src/web/imports.ts), sign out.
 */
export function accountPages(deps: Network & { db: ShelfDb; clock: () => number; passwords?: Passwords; log?: LogSink }, guard: PageGuard, signIns: SignInThrottle) {
  const { db, clock, config, passwords = processPasswords, log = console.error } = deps;
  const fresh = newTokens();
  // Someone at an unlocked browser (or with a stolen session) must not be able to guess the
  // current password at argon2 speed: the sign-in form's limit, per account as well.
  const wrongCurrent = new SignInThrottle();
  const page = (shelf: Shelf, options: Omit<AccountOptions, "user" | "tokens" | "grants" | "imports" | "copies"> = {}, status = 200) =>
    htmlResponse(accountPage({ user: shelf.viewer(), tokens: shelf.tokens.list(), grants: shelf.extensions.list(), imports: shelf.imports.list(), copies: { ...shelf.copies.usage(), quota: shelf.copies.quota }, ...options }), { status });

  /** The password and token forms: a refusal shows the account page again with the messages beside the form's fields. */
  const accountForm = (options: (error: AppError, request: Request) => Omit<AccountOptions, "user" | "tokens" | "grants" | "imports" | "copies">): Surface => ({
    ...PAGE_ROUTE,
    invalid: ({ request }, error) => {
      const shelf = guard.shelfOf(request);
      return shelf && error instanceof ValidationFailed ? page(shelf, options(error, request), error.status) : error;
    },
  });

  return new Elysia()
    .use(surfaces)
    .get("/assets/account.js", () => new Response(ACCOUNT_JS, {
      headers: { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff" },
    }), { surface: { kind: "browser", limited: false, callers: false } })
    .get("/account", ({ request, query }) => guard.page(request, (shelf) =>
      page(shelf, { notice: noticeOf(query.done), newToken: fresh.take(query.token, shelf.user.id, clock()) })), { surface: PAGE_ROUTE })
    .post("/account/password", ({ request, body, cookie }) => guard.form(request, async (shelf) => {
      const { user } = shelf;
      const now = clock();
      const ip = clientAddress(request, { config, peerAddress: deps.peerAddress });
      const tooMany = "The current password was wrong too many times. Try again later.";
      // Both counted before the password is checked, so parallel guesses cannot get past them.
      const byAddress = signIns.begin(ip, now);
      if (!byAddress.allowed) throw new TooManyAttempts(byAddress.retryAfter, tooMany);
      const byAccount = wrongCurrent.begin(`user:${user.id}`, now);
      if (!byAccount.allowed) {
        byAddress.release();
        throw new TooManyAttempts(byAccount.retryAfter, tooMany);
      }
      const rules = new Rules();
      const password = formField(body, "password");
      let valid: boolean;
      try {
        valid = await passwords.verify(formField(body, "current"), user.passwordHash);
      } catch (error) {
        // A verification that did not happen (the hashing queue was full: PasswordsBusy) does not count.
        byAddress.release();
        byAccount.release();
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
      rules.check();
      await setPassword(db, user.id, password, { passwords });
      startBrowserSession(deps, request, cookie, user.id, clock());
      return seeOther(withNotice("/account", "password-changed"));
    }), {
      // Passwords are never written back into the page: the fields come back empty.
      surface: accountForm((error) => ({ passwordErrors: fieldErrorsOf(error.errors) })),
    })
    .post("/account/tokens", ({ request, body }) => guard.form(request, (shelf) => {
      const rules = new Rules();
      const name = checkTokenName(rules, formField(body, "name"));
      rules.check();
      const now = clock();
      const { token } = shelf.tokens.create(name, now);
      return seeOther(`/account?token=${fresh.put(shelf.user.id, { name, token }, now)}`);
    }), {
      surface: accountForm((error, request) => ({ tokenErrors: fieldErrorsOf(error.errors), tokenName: formField(submittedForm(request), "name") })),
    })
    .post("/account/tokens/:id/revoke", ({ request, params }) => guard.form(request, (shelf) => {
      shelf.tokens.revoke(parseId(params.id));
      return seeOther(withNotice("/account", "token-revoked"));
    }), { surface: PAGE_ROUTE })
    .post("/account/extensions/:id/remove", ({ request, params }) => guard.form(request, (shelf) => {
      shelf.extensions.remove(parseId(params.id));
      return seeOther(withNotice("/account", "extension-removed"));
    }), { surface: PAGE_ROUTE });
}
