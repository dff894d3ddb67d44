/**
 * The address bar's keyword `ls`: what is typed after it is searched on the server
 * (`GET /api/v1/search`), the hits are offered as suggestions, and choosing one opens it through
 * `<server>/l/<id>` so the click counts. Enter on text that is no suggestion opens the server's
 * own search page. The background script registers these handlers; the tests call them with the
 * browser's parts faked.
 */
import type { SearchHitJson } from "../../src/contract/search";
import { ApiError, createClient } from "./api";
import { forgetToken, loadState } from "./state";
import type { Disposition, StorageArea, Suggestion, Tab } from "./webext";

/** Chromium reads a suggestion's description as XML with its own tags; Firefox shows plain text. */
export type Flavor = "chromium" | "firefox";

/** How many hits are offered (the address bar shows few). */
export const SUGGESTION_LIMIT = 6;
/** Typing pauses this long before a search is sent; a newer input in the meantime replaces it. */
export const DEBOUNCE_MS = 200;
/** The first line of the address bar's list while typing; the browsers put the typed text for `%s`. */
export const DEFAULT_SUGGESTION = "Search linkshelf for %s";
/** The one suggestion while signed out; choosing it (or pressing Enter) opens the options page. */
export const SIGN_IN_CONTENT = "linkshelf: sign in";
const SIGN_IN_DESCRIPTION = "Sign in to linkshelf in the extension's options page";

export interface OmniboxDeps {
  storage: StorageArea;
  tabs: { create(details: { url: string; active?: boolean }): Promise<Tab>; update(details: { url: string }): Promise<Tab> };
  openOptionsPage(): Promise<void>;
  flavor: Flavor;
  fetch?: typeof fetch;
  debounceMs?: number;
}

export interface OmniboxHandlers {
  /** What `omnibox.onInputChanged` calls; settles once `suggest` was called or the input was replaced by a newer one. */
  inputChanged(text: string, suggest: (suggestions: Suggestion[]) => void): Promise<void>;
  /** What `omnibox.onInputEntered` calls: a suggestion's content or the text as typed. */
  inputEntered(text: string, disposition: Disposition): Promise<void>;
}

/** escapeXml makes text safe inside Chromium's description markup. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** markMatches wraps each valid `[start, end)` range of `text` in `<match>`, escaping the rest; ranges out of order or bounds are ignored. */
export function markMatches(text: string, matches: readonly (readonly [number, number])[]): string {
  let out = "";
  let at = 0;
  for (const [start, end] of matches) {
    if (!Number.isInteger(start) || !Number.isInteger(end) || start < at || end <= start || end > text.length) continue;
    out += `${escapeXml(text.slice(at, start))}<match>${escapeXml(text.slice(start, end))}</match>`;
    at = end;
  }
  return out + escapeXml(text.slice(at));
}

/**
 * describeHit is a hit's line in the address bar: the link's name, then the snippet on one line.
 * For Chromium it is markup, with the snippet's matched words in `<match>` and the snippet
 * dimmed around them; for Firefox, plain text.
 */
export function describeHit(hit: SearchHitJson, flavor: Flavor): string {
  // One space for each white-space code unit keeps the match offsets where they were.
  const snippet = hit.snippet.text.replace(/\s/g, " ");
  if (flavor === "firefox") return `${hit.link.name} — ${snippet.replace(/ {2,}/g, " ").trim()}`;
  return `${escapeXml(hit.link.name)} <dim>—</dim> ${markMatches(snippet, hit.snippet.matches)}`;
}

/** linkAddress is where a suggestion leads: the server's redirect, which counts the click. */
export function linkAddress(server: string, id: number): string {
  return `${server}/l/${id}`;
}

/** createOmnibox returns the handlers of the `ls` keyword. */
export function createOmnibox({ storage, tabs, openOptionsPage, flavor, fetch: send, debounceMs = DEBOUNCE_MS }: OmniboxDeps): OmniboxHandlers {
  let latest = 0;

  async function suggestionsFor(text: string): Promise<Suggestion[]> {
    const state = await loadState(storage);
    if (state.server === null || state.token === null) return [{ content: SIGN_IN_CONTENT, description: SIGN_IN_DESCRIPTION }];
    const { server } = state;
    try {
      const page = await createClient({ origin: server, token: state.token, fetch: send }).search(text, SUGGESTION_LIMIT);
      return page.hits.map((hit) => ({ content: linkAddress(server, hit.link.id), description: describeHit(hit, flavor) }));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.kind !== "unauthorized") return [];
      await forgetToken(storage, error.message);
      return [{ content: SIGN_IN_CONTENT, description: SIGN_IN_DESCRIPTION }];
    }
  }

  async function open(url: string, disposition: Disposition): Promise<void> {
    if (disposition === "currentTab") await tabs.update({ url });
    else await tabs.create({ url, active: disposition === "newForegroundTab" });
  }

  return {
    async inputChanged(text, suggest) {
      const ticket = ++latest;
      const query = text.trim();
      if (query === "") return suggest([]);
      await new Promise((resolve) => setTimeout(resolve, debounceMs));
      if (ticket !== latest) return;
      const suggestions = await suggestionsFor(query);
      // An answer to an older input is dropped: what the user typed since is what counts.
      if (ticket === latest) suggest(suggestions);
    },

    async inputEntered(text, disposition) {
      const state = await loadState(storage);
      if (state.server === null || state.token === null) return openOptionsPage();
      const typed = text.trim();
      const own = typed.startsWith(`${state.server}/l/`) && /^\d+$/.test(typed.slice(state.server.length + 3));
      const url = own ? typed : typed === "" || typed === SIGN_IN_CONTENT ? `${state.server}/` : `${state.server}/search?q=${encodeURIComponent(typed)}`;
      await open(url, disposition);
    },
  };
}
