/**
 * What the bookmark-file import tests share, the fast ones (test/app/import.*) and the slow tier's
 * (test/slow/import.*): Netscape files built from `<DT>` lines and a test app with two users for
 * the importer; the import page's requests (a multipart upload as the form sends it) and the
 * text of its elements for the page tests.
 */
import { createSession } from "../../src/auth/sessions";
import { escapeHtml } from "../../src/bookmarks/netscape";
import { createUser, makeEnv, START, type TestEnv, type TestUser } from "./helpers";

/** The importer's clock in the Netscape file tests. */
export const NOW = START + 1_000_000_000;

/** A minimal file around some `<DT>` lines. */
export const file = (body: string) => `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">\n<TITLE>Bookmarks</TITLE>\n<H1>Bookmarks</H1>\n<DL><p>\n${body}\n</DL><p>\n`;
export const link = (url: string, name: string, extra = "") => `<DT><A HREF="${escapeHtml(url)}"${extra}>${escapeHtml(name)}</A>`;
export const folder = (name: string, body: string) => `<DT><H3>${escapeHtml(name)}</H3>\n<DL><p>\n${body}\n</DL><p>`;
/** `count` bookmarks, one `<DT>` line each, outside any folder. */
export const links = (count: number) => Array.from({ length: count }, (_, i) => link(`https://site.example/${i}`, `Page ${i}`)).join("\n");

/** newEnv is a test app with two users, alice and bob. */
export async function newEnv(settings: Record<string, string> = {}) {
  const env = makeEnv(settings);
  return { env, alice: await createUser(env), bob: await createUser(env) };
}

export interface PageResponse {
  status: number;
  headers: Headers;
  text: string;
}

export const cookieFor = (env: TestEnv, as: TestUser) => `linkshelf_session=${createSession(env.db, as.user.id, env.clock.now).id}`;

/** send makes a page request as a browser would: Accept: text/html, the cookie, and this site's Origin on a POST unless `origin` is null. */
export async function send(env: TestEnv, path: string, init: RequestInit & { cookie?: string; origin?: string | null } = {}): Promise<PageResponse> {
  const headers = new Headers(init.headers);
  headers.set("accept", "text/html");
  if (init.cookie) headers.set("cookie", init.cookie);
  if (init.method === "POST" && init.origin !== null) headers.set("origin", init.origin ?? "http://localhost");
  const response = await env.app.handle(new Request(`http://localhost${path}`, { ...init, headers }));
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** upload sends a file as the page's form does (multipart, field `file`). */
export function upload(env: TestEnv, bytes: Uint8Array | string, cookie?: string, options: { name?: string; origin?: string | null } = {}) {
  const form = new FormData();
  form.append("file", new File([bytes], options.name ?? "bookmarks.html", { type: "text/html" }));
  return send(env, "/import", { method: "POST", body: form, cookie, origin: options.origin });
}

const decode = (text: string) => text.replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[name]!);

/** texts collects the decoded text of every element matching a selector, each run of white space made one space. */
export function texts(page: string, selector: string): string[] {
  const found: string[] = [];
  new HTMLRewriter().on(selector, {
    element: (element) => {
      found.push("");
      const index = found.length - 1;
      element.onEndTag(() => void (found[index] = decode(found[index]!).replace(/\s+/g, " ").trim()));
    },
    text: (chunk) => void (found[found.length - 1] += chunk.text),
  }).transform(page);
  return found;
}

/** twoUsers is a test app with Alice and Bob, each with a session cookie. */
export async function twoUsers() {
  const env = makeEnv();
  const alice = await createUser(env, { name: "Alice" });
  const bob = await createUser(env, { name: "Bob" });
  return { env, alice, bob, aliceCookie: cookieFor(env, alice), bobCookie: cookieFor(env, bob) };
}

/** bigFile is a bookmarks file of `entries` links in 10 folders. */
export function bigFile(entries: number): string {
  const lines = ["<!DOCTYPE NETSCAPE-Bookmark-file-1>", "<META HTTP-EQUIV=\"Content-Type\" CONTENT=\"text/html; charset=UTF-8\">", "<DL><p>"];
  for (let folder = 0; folder < 10; folder++) {
    lines.push(`<DT><H3>Folder ${folder}</H3>`, "<DL><p>");
    for (let i = folder; i < entries; i += 10) lines.push(`<DT><A HREF="https://site${i}.example/page" ADD_DATE="1700000000">Page number ${i}</A>`);
    lines.push("</DL><p>");
  }
  lines.push("</DL><p>");
  return lines.join("\n");
}
