import { Elysia } from "elysia";
import { HANDOFF_DENIED, HANDOFF_ERROR_PARAM } from "../contract/handoff";
import { sessionUser, withRenewedSession } from "../auth/identity";
import { SignInThrottle } from "../auth/throttle";
import { Forbidden, TooManyAttempts } from "../common/errors";
import { checkTokenName } from "../common/token-secrets";
import { Rules } from "../common/rules";
import { EXTENSION_TOKEN_NAME } from "../shelf/extensions";
import { clientAddress, type Network } from "../request/arrival";
import { formBody } from "../request/form-body";
import { refuseCrossSite, toSignIn } from "../request/origin";
import { consentPage } from "../pages/handoff";
import { htmlResponse } from "../pages/html";
import { describeRoute } from "../openapi/describe";
import { Shelf, type ShelfDb } from "../shelf/shelf";
import type { AfterWrite } from "../shelf/types";
import { surfaces, type Surface } from "../request/surface";
import { callbackLocation, checkRedirectUri, RedirectUriRefused } from "../shelf/redirect-uri";

/** handoff is the answer that hands a token to the extension: to its callback, the token in the fragment. */
function handoff(url: URL, token: string): Response {
  return new Response(null, {
    status: 302,
    headers: { Location: callbackLocation(url, token), "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" },
  });
}

/** cancelLocation is the callback without its fragment, told that the user said no. */
function cancelLocation(url: URL): string {
  const target = new URL(url.href);
  target.hash = "";
  return `${target.href}#${HANDOFF_ERROR_PARAM}=${HANDOFF_DENIED}`;
}

/** A browser navigation with a session cookie: its errors are HTML pages, whoever asks. */
const HANDOFF_ROUTE: Surface = { kind: "page", limited: false, callers: ["session"] };

/** Requests to `/extension/authorize` per client address per 15 minutes, every method and answer counted. */
const HANDOFF_THROTTLE = { requests: 30, windowMs: 15 * 60 * 1000 } as const;

/**
 * refuseSubresource refuses a request the browser says is not a top-level page (an image, a
 * frame, a script, a fetch: `Sec-Fetch-Dest` other than `document`), so that a page cannot
 * have tokens minted by embedding this address. A client that sends no `Sec-Fetch-Dest`
 * (an older browser, a script) is judged without it.
 */
function refuseSubresource(request: Request): void {
  const destination = request.headers.get("sec-fetch-dest");
  if (destination !== null && destination !== "document") {
    throw new Forbidden("An extension is signed in only in a window of its own: this address does nothing inside another page.");
  }
}

/**
 * fromAnotherSite is true for a navigation the browser says another site started
 * (`Sec-Fetch-Site: cross-site` or `same-site`: a link, a form or a script on another page).
 * `none` (a typed address, Firefox's sign-in window) and `same-origin` (after this server's
 * sign-in form) are not; a client that sends no `Sec-Fetch-Site` (Firefox's first, background try
 * of its sign-in flow, a script) is judged without it. Chromium's sign-in window says
 * `cross-site` (the extension started it): nothing in the request tells it from a page of another
 * site, so it gets the consent page too.
 */
function fromAnotherSite(request: Request): boolean {
  const site = request.headers.get("sec-fetch-site");
  return site === "cross-site" || site === "same-site";
}

const redirectUriQuery = {
  redirect_uri: {
    description: "https://<32 letters a-p>.chromiumapp.org/... or https://<40 hex>.extensions.allizom.org/..., no port, no user info.",
    required: true,
  },
  name: {
    description: "The new token's name, as the extension says its browser and system (\"Chromium on Linux\", \"Firefox on Windows\"): a token name's rules (1-100 characters, no control characters); missing or refused: \"Browser extension\".",
    required: false,
  },
};

/** tokenNameOf is the name an extension asked for its token (`name`), when the name rules allow it; else EXTENSION_TOKEN_NAME. */
function tokenNameOf(url: URL): string {
  const given = url.searchParams.getAll("name");
  if (given.length !== 1) return EXTENSION_TOKEN_NAME;
  const rules = new Rules();
  const name = checkTokenName(rules, given[0]!);
  return rules.errors.length === 0 ? name : EXTENSION_TOKEN_NAME;
}

/**
 * extensionRoutes: `/extension/authorize`, the extension's token handoff, for a browser with
 * a session cookie (a bearer token is no session here).
 *
 * The first time a user meets an extension id, `GET` shows a consent page; its Allow button
 * POSTs to the same address, which records the approval and hands over a token. An approved
 * id goes straight to the handoff. `HEAD` never mints: it answers as the consent page does.
 * An extension holds one token: a new one revokes the one before, and is minted at most once a
 * minute. Only a top-level page mints (refuseSubresource); a navigation another site started
 * (fromAnotherSite) gets the consent page even for an approved id, so that no page can have the
 * token an extension holds replaced (and the extension signed out) without a click on Allow;
 * each address may ask 30 times in 15 minutes.
 */
export function extensionRoutes({ db, config, clock, peerAddress, capture }: Network & { db: ShelfDb; clock: () => number; capture?: AfterWrite }) {
  const network = { config, peerAddress };
  const perAddress = new SignInThrottle(HANDOFF_THROTTLE.requests, HANDOFF_THROTTLE.windowMs);

  /**
   * The checks both methods share: the address's budget (TooManyAttempts, 429), redirect_uri
   * (RedirectUriRefused, 400), a top-level page (Forbidden, 403), then the session (303 to sign in).
   */
  const admit = (request: Request) => {
    const now = clock();
    const counted = perAddress.begin(clientAddress(request, network), now);
    if (!counted.allowed) throw new TooManyAttempts(counted.retryAfter, "Too many extension sign-ins from this address. Try again later.");
    const url = new URL(request.url);
    // Read every value: the parsed query keeps only the last of a repeated parameter.
    const given = url.searchParams.getAll("redirect_uri");
    const check = checkRedirectUri(given.length > 1 ? given : given[0]);
    if (!check.ok) throw new RedirectUriRefused(check.reason);
    refuseSubresource(request);
    const who = sessionUser(db, request, now);
    if (!who) {
      const back = url.pathname + url.search;
      return { refusal: toSignIn(back) };
    }
    return { check, who, shelf: new Shelf(db, who.user, capture), now, action: url.pathname + url.search, tokenName: tokenNameOf(url) };
  };

  return new Elysia()
    .use(surfaces)
    .use(formBody())
    .get("/extension/authorize", ({ request }) => {
      const admitted = admit(request);
      if ("refusal" in admitted) return admitted.refusal;
      const { check, who, shelf, now, action, tokenName } = admitted;
      const grant = shelf.extensions.find(check);
      const sentByAnotherSite = fromAnotherSite(request);
      // Elysia answers HEAD with this handler: a HEAD must never mint, so it gets the consent page.
      const response = grant && request.method !== "HEAD" && !sentByAnotherSite
        ? handoff(check.url, shelf.extensions.mint(grant, now, tokenName))
        : htmlResponse(consentPage({ user: shelf.viewer(), extension: check, action, cancel: cancelLocation(check.url), allowedBefore: grant !== undefined }));
      return withRenewedSession(response, request, network, who, now);
    }, {
      surface: HANDOFF_ROUTE,
      detail: describeRoute({
        tag: "extension", summary: "Hand a new API token to the browser extension",
        description: "A top-level browser navigation with the user's session cookie (a bearer token is not accepted). The first time the user meets an extension id, a consent page asks them to allow it; an extension they allowed gets a new token named as its `name` says (its browser and system), else \"Browser extension\", which revokes the one it held before, at most once a minute. A navigation the browser marks as started by another site (Sec-Fetch-Site: cross-site or same-site, which Chromium's sign-in window sends too) gets the consent page even for an allowed extension and mints nothing until Allow is pressed; none (Firefox's sign-in window, a typed address), same-origin (after the sign-in form) and a request without the header go straight through. HEAD never mints. 30 requests per client address per 15 minutes.",
        query: redirectUriQuery,
        responses: {
          200: { description: "Signed in, extension not yet allowed, or allowed but the navigation came from another site (and every HEAD): the consent page, whose Allow button POSTs here. No token is created or revoked.", media: ["text/html"] },
          302: { description: "Signed in, extension allowed before, not sent by another site: to redirect_uri with a new token in the fragment.", headers: { Location: "<redirect_uri>#token=<url-encoded token>" } },
          303: { description: "No session: to /login, which comes back here.", headers: { Location: "/login?next=..." } },
          400: { description: "redirect_uri is refused; no token is created.", media: ["text/html"] },
          403: { description: "The browser says this is no top-level page (Sec-Fetch-Dest other than document: an image, a frame, a fetch); no token is created.", media: ["text/html"] },
          429: { description: "The extension was handed a token less than a minute ago, or this address asked 30 times in 15 minutes; Retry-After says when to try again. No token is created or revoked.", media: ["text/html"] },
        },
      }),
    })
    .post("/extension/authorize", ({ request }) => {
      refuseCrossSite(request, network);
      const admitted = admit(request);
      if ("refusal" in admitted) return admitted.refusal;
      const { check, who, shelf, now, tokenName } = admitted;
      const token = shelf.extensions.approve(check, now, tokenName);
      return withRenewedSession(handoff(check.url, token), request, network, who, now);
    }, {
      surface: HANDOFF_ROUTE,
      detail: describeRoute({
        tag: "extension", summary: "Allow a browser extension and hand it a token",
        description: "The consent page's Allow button (a form POST with the session cookie, from this server's own pages only). Records that the user allowed this extension id, then mints a token as GET does for an allowed one (revoking the one before, at most once a minute).",
        query: redirectUriQuery,
        responses: {
          302: { description: "To redirect_uri with a new token in the fragment.", headers: { Location: "<redirect_uri>#token=<url-encoded token>" } },
          303: { description: "No session: to /login, which comes back to the consent page.", headers: { Location: "/login?next=..." } },
          400: { description: "redirect_uri is refused; nothing is recorded, no token is created.", media: ["text/html"] },
          403: { description: "The form was sent from another site, or not from a top-level page; nothing is recorded.", media: ["text/html"] },
          429: { description: "The extension was handed a token less than a minute ago, or this address asked 30 times in 15 minutes; Retry-After says when to try again. Nothing is recorded.", media: ["text/html"] },
        },
      }),
    });
}
