/**
 * Pages for the capture tests and its benchmark: a news article wrapped in navigation, ads,
 * related stories and a footer; a Japanese article (with a Chinese paragraph); a page in
 * windows-1252 that says so only in its `<meta>`; and a page of any size (2 MiB) built from
 * the article, with more navigation and comments around it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const dir = join(import.meta.dir, "..", "fixtures", "pages");

export const ARTICLE_HTML = readFileSync(join(dir, "article.html"), "utf8");
export const CJK_HTML = readFileSync(join(dir, "cjk.html"), "utf8");

/** Sentences of the article's body, and words of its navigation, ads and footer (which must not be kept). */
export const ARTICLE_KEEPS = ["Twice a day the sea pulls back", "Small worlds, big lessons", "never turn your back on the sea"];
export const ARTICLE_DROPS = ["Subscribe today", "BUY CHEAP FLIGHTS", "Most read", "SUNSCREEN", "Related stories", "All rights reserved", "Privacy policy", "SCRIPT TEXT", "Sign up"];

/**
 * latin1Page is a page encoded in windows-1252 (é is the single byte 0xE9, “ ” are 0x93 0x94,
 * € is 0x80) that declares it only in `<meta>` (`charset` or `http-equiv`, as asked).
 */
export function latin1Page(declaration: "charset" | "http-equiv" | "none" = "charset"): Uint8Array {
  const meta = declaration === "charset"
    ? `<meta charset="windows-1252">`
    : declaration === "http-equiv" ? `<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">` : "";
  const text = `<!DOCTYPE html><html lang="fr"><head>${meta}<title>Caf\u00e9 cr\u00e8me</title></head><body><article>`
    + `<h1>Caf\u00e9 cr\u00e8me</h1>`
    + `<p>\u201cLe caf\u00e9 co\u00fbte 3 \u20ac\u201d, dit la serveuse. Les gar\u00e7ons \u00e9crivent \u00e0 la main sur une ardoise pr\u00e8s de la fen\u00eatre, et le patron go\u00fbte chaque fournée avant l'ouverture.</p>`
    + `<p>Au comptoir, on parle du march\u00e9 de No\u00ebl, des pr\u00e9visions de neige et du prix du beurre qui ne cesse de monter depuis l'\u00e9t\u00e9 dernier.</p>`
    + `</article></body></html>`;
  const cp1252: Record<string, number> = { "\u20ac": 0x80, "\u201c": 0x93, "\u201d": 0x94 };
  return Uint8Array.from([...text].map((char) => {
    const code = char.codePointAt(0)!;
    if (code < 0x100) return code;
    const byte = cp1252[char];
    if (byte === undefined) throw new Error(`no windows-1252 byte for ${char}`);
    return byte;
  }));
}

/**
 * bigPage is `bytes` long (UTF-8): the article's page with its body repeated as numbered
 * sections, each followed by a comment thread and a block of navigation links.
 */
export function bigPage(bytes: number): string {
  const body = /<div class="post-body">([\s\S]*?)<\/div>\s*<div class="share-buttons">/.exec(ARTICLE_HTML)![1]!;
  const [head, tail] = ARTICLE_HTML.split(body) as [string, string];
  const parts: string[] = [];
  let size = Buffer.byteLength(head) + Buffer.byteLength(tail);
  for (let section = 1; ; section++) {
    const piece = `<h2>Section ${section}</h2>${body}`
      + `<div class="comments"><p class="comment">Great read, thanks! (${section})</p><p class="comment">I visited last summer.</p></div>`
      + `<ul class="more-links">${Array.from({ length: 20 }, (_, i) => `<li><a href="/more/${section}/${i}">More coverage ${i}</a></li>`).join("")}</ul>`;
    const pieceBytes = Buffer.byteLength(piece);
    if (size + pieceBytes + 7 > bytes) break;
    parts.push(piece);
    size += pieceBytes;
  }
  // A comment fills the rest, so the page is exactly `bytes` long and still ends with its footer.
  parts.push(`<!--${" ".repeat(Math.max(0, bytes - size - 7))}-->`);
  return head + parts.join("") + tail;
}

/** Timers the test moves by hand, with the clock they read: `advance` runs whatever falls due. */
export function manualTimers() {
  const clock = { now: 1_000_000 };
  let pending: { at: number; run: () => void; handle: number }[] = [];
  let next = 0;
  const timers = {
    setTimeout(run: () => void, millis: number): unknown {
      const handle = ++next;
      pending.push({ at: clock.now + millis, run, handle });
      return handle;
    },
    clearTimeout(handle: unknown): void {
      pending = pending.filter((timer) => timer.handle !== handle);
    },
  };
  return {
    clock,
    timers,
    /** When the pending timers fall due, soonest first. */
    due: () => pending.map((timer) => timer.at).sort((a, b) => a - b),
    advance(millis: number): void {
      clock.now += millis;
      const ready = pending.filter((timer) => timer.at <= clock.now);
      pending = pending.filter((timer) => timer.at > clock.now);
      for (const timer of ready) timer.run();
    },
  };
}

/** A promise with its resolve function, for a fake origin's answer the test releases. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/**
 * heldRequest is a fake origin's route that keeps a request waiting until the client gives up:
 * `arrived` resolves when the request comes in, `abandoned` when the client aborts it (its answer
 * then comes too late for anyone to read).
 */
export function heldRequest() {
  const arrived = deferred();
  const abandoned = deferred();
  const route = (request: Request) => {
    arrived.resolve();
    return new Promise<Response>((resolve) => request.signal.addEventListener("abort", () => {
      abandoned.resolve();
      resolve(new Response("too late"));
    }));
  };
  return { route, arrived: arrived.promise, abandoned: abandoned.promise };
}

/**
 * until waits for a condition that another part of the process makes true (a request reaching a
 * fake origin, a fetch finishing), turn by turn of the event loop; it fails after 5 s instead of hanging.
 */
export async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** htmlPage answers a page of HTML with the given title and paragraph. */
export const htmlPage = (title: string, paragraph = "Some text of the page.", contentType = "text/html; charset=utf-8") =>
  new Response(`<!DOCTYPE html><html lang="en"><head><title>${title}</title></head><body><article><p>${paragraph}</p></article></body></html>`, {
    headers: { "content-type": contentType },
  });
