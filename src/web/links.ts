import { Elysia } from "elysia";
import { Conflict, ValidationFailed } from "../common/errors";
import type { ContentCapture } from "../capture/fetcher";
import type { Config } from "../common/config";
import type { Network } from "../request/arrival";
import { ownOrigin, safeNext, seeOther } from "../request/origin";
import { parseId, readId } from "../common/ids";
import { fieldErrorsOf, type FieldErrors } from "../pages/form";
import { formField, formValues, submittedForm } from "../request/form-body";
import { htmlResponse } from "../pages/html";
import { linkDetailsPage, type RecaptureOffer } from "../pages/link-details";
import { readingPage } from "../pages/reading";
import { flagButtons, linkDeletePage, linkFormPage, type LinkFormValues, type SavedBefore } from "../pages/links";
import { formatNumber } from "../common/format";
import { LINK_LIMITS } from "../shelf/limits";
import { cleanName, isHttpUrl } from "../common/rules";
import type { ContentSource } from "../contract/content";
import type { Shelf } from "../shelf/shelf";
import { PAGE_ROUTE, surfaces, type Surface } from "../request/surface";
import type { PageGuard } from "./guard";
import { noticeOf, withNotice, type NoticeCode } from "./notices";

/**
 * linkFormInput reads a link form as typed. A collection id that is not a number is read as 0,
 * an id no collection has, so the shelf refuses it as it refuses another user's id.
 */
function linkFormInput(body: unknown): LinkFormValues {
  return {
    name: formField(body, "name"),
    url: formField(body, "url"),
    description: formField(body, "description"),
    favorite: formField(body, "favorite") !== "",
    collectionIds: formValues(body, "collectionIds").map((id) => readId(id) ?? 0),
  };
}

/** flagField reads one flag of the flag buttons' form: "true" or "false"; anything else (or none) leaves the flag as it is. */
function flagField(body: unknown, name: string): boolean | undefined {
  const value = formField(body, name);
  return value === "true" ? true : value === "false" ? false : undefined;
}

/** wantsJson: the pages' script asks for the answer as JSON (it stays on the page); a plain form is sent back to its page. */
const wantsJson = (request: Request) => (request.headers.get("accept") ?? "").startsWith("application/json");

/** An http(s) URL inside shared text, up to white space or a character a URL cannot end with. */
const URL_IN_TEXT = /https?:\/\/[^\s<>"]+/gi;

/** httpUrl is `text` when it parses as an absolute http(s) URL (trailing punctuation of a sentence dropped), else undefined. */
function httpUrl(text: string): string | undefined {
  const candidate = text.trim().replace(/[.,;:!?'»)\]]+$/, (tail) => (text.includes("(") && tail.startsWith(")") ? ")" : ""));
  const parsed = URL.parse(candidate);
  return parsed && (parsed.protocol === "http:" || parsed.protocol === "https:") ? candidate : undefined;
}

/**
 * sharedLink reads what a phone's share sheet sends to the add-link form (the web app
 * manifest's share target: `title`, `text`, `url`). The URL is `url`, or when that is empty or
 * not http(s) (Android often puts it inside `text`) the first http(s) URL in `text`. The name
 * is `title`, else what `text` says besides that URL.
 */
export function sharedLink(query: Record<string, unknown>): { name: string; url: string } {
  const read = (key: string) => (typeof query[key] === "string" ? (query[key] as string) : "");
  const text = read("text");
  let url = httpUrl(read("url"));
  let rest = text;
  if (url === undefined) {
    for (const match of text.matchAll(URL_IN_TEXT)) {
      url = httpUrl(match[0]);
      if (url !== undefined) {
        rest = text.replace(match[0], " ");
        break;
      }
    }
  }
  const name = read("title").trim() || rest.replace(/\s+/g, " ").trim();
  return { name, url: url ?? "" };
}

/** titleName makes a page's title a link name: cleaned as an imported name is, cut to the name's limit. */
const titleName = (title: string) => [...cleanName(title).replace(/\s+/g, " ")].slice(0, LINK_LIMITS.name).join("").trim();

/**
 * addressName names a link after its address, host and path (`example.com/articles/1`, the
 * path's escapes decoded where they can be), when no name was typed and no title could be read.
 */
export function addressName(url: string): string {
  const parsed = new URL(url);
  let path = parsed.pathname === "/" ? "" : parsed.pathname;
  try {
    path = decodeURI(path);
  } catch {
    // A malformed escape stays as it was written.
  }
  return titleName(`${parsed.host}${path}`);
}

/**
 * linkPages: one link's page (`/links/:id`: its fields, collections, clicks and saved page,
 * with "Capture again"), its reading view (`/links/:id/read`), add (`/links/new`), edit (`/links/:id/edit`), delete
 * (`/links/:id/delete`, a confirmation form), the favorite toggle of the lists and the reading
 * list and archive buttons (`/links/:id/flags`: back to `next`, or JSON for the pages' script). Every write calls the links
 * service, the API's own write path; a refusal shows the form again, as typed, with the
 * service's messages beside the fields (422), through the routes' declared `invalid`. A link
 * added without a name is named after its page's title, fetched then and there (then kept as the
 * page's captured content); when there is no title to read (or the server reads no pages), after
 * its host and path, and the page that follows says so. A URL already on the shelf is not
 * added at once: the form comes back (409) saying when and where it was saved, with a second
 * button that adds it anyway.
 */
export function linkPages({ config, clock, peerAddress, capture }: Network & { config: Pick<Config, "fetchContent">; clock: () => number; capture?: ContentCapture }, guard: PageGuard) {
  /** Whether this server reads pages (`LINKSHELF_FETCH_CONTENT` on, and a capture given): a page's title can name a link, a page can be fetched again. */
  const readsPages = config.fetchContent && capture !== undefined;
  const nextOf = (request: Request, value: unknown) => safeNext(value, ownOrigin(request, { config, peerAddress }));

  const form = (shelf: Shelf, values: LinkFormValues, next: string, errors: FieldErrors, linkId?: number, status = 200, saved?: SavedBefore) =>
    htmlResponse(linkFormPage({ user: shelf.viewer(), linkId, values, collections: shelf.collections.summaries(), errors, next, titleFromPage: readsPages, saved }), { status });

  /** The add and edit forms: a refusal shows the form again, as typed, with the messages beside the fields. */
  const linkForm: Surface = {
    ...PAGE_ROUTE,
    invalid: ({ request, params }, error) => {
      const shelf = guard.shelfOf(request);
      if (!shelf || !(error instanceof ValidationFailed)) return error;
      const body = submittedForm(request);
      const linkId = params.id === undefined ? undefined : readId(params.id);
      return form(shelf, linkFormInput(body), nextOf(request, formField(body, "next")), fieldErrorsOf(error.errors), linkId, error.status);
    },
  };

  /** save runs a shelf write, then goes back to the list. */
  const save = async (request: Request, body: unknown, write: (values: LinkFormValues) => void | Promise<void>, done: NoticeCode) => {
    await write(linkFormInput(body));
    return seeOther(withNotice(nextOf(request, formField(body, "next")), done));
  };

  /**
   * recaptureOf says whether the server may fetch a link's page again: not when it fetches no
   * pages (`LINKSHELF_FETCH_CONTENT=off`, or no capture at all), and not over a browser capture,
   * which a server fetch never replaces.
   */
  const recaptureOf = (source: ContentSource | undefined): RecaptureOffer =>
    !readsPages ? "off" : source === "browser" ? "browser" : "offered";

  return new Elysia()
    .use(surfaces)
    .get("/links/:id", ({ request, params, query }) => guard.page(request, (shelf) => {
      const link = shelf.links.get(parseId(params.id));
      const content = shelf.links.contentSummary(link.id);
      const summaries = new Map(shelf.collections.summaries().map((collection) => [collection.id, collection]));
      return htmlResponse(linkDetailsPage({
        user: shelf.viewer(), link, content, recapture: recaptureOf(content?.source), problem: capture?.problemOf(link.id), health: shelf.health.of(link.id), notice: noticeOf(query.done),
        collections: link.collectionIds.flatMap((id) => summaries.get(id) ?? []),
      }));
    }), { surface: PAGE_ROUTE })
    .get("/links/:id/read", ({ request, params }) => guard.page(request, (shelf) => {
      const link = shelf.links.get(parseId(params.id));
      const content = shelf.links.contentSummary(link.id) ? shelf.links.content(link.id) : null;
      return htmlResponse(readingPage({ user: shelf.viewer(), link, content, next: shelf.links.nextToRead(link.id) }));
    }), { surface: PAGE_ROUTE })
    .post("/links/:id/capture", ({ request, params }) => guard.form(request, (shelf) => {
      const link = shelf.links.get(parseId(params.id));
      const offer = recaptureOf(shelf.links.contentSummary(link.id)?.source);
      if (offer === "off") throw new Conflict("CAPTURE_OFF", "This server does not fetch pages: LINKSHELF_FETCH_CONTENT is off.");
      if (offer === "browser") {
        throw new Conflict("BROWSER_CAPTURE", "Your browser captured this page, and the server never replaces that: open the page and save it with the extension to capture it again.");
      }
      capture?.enqueue(link.id, shelf.user.id, link.url);
      return seeOther(withNotice(`/links/${link.id}`, "capture-queued"));
    }), { surface: PAGE_ROUTE })
    .get("/links/new", ({ request, query }) => guard.page(request, (shelf) => {
      const collections = shelf.collections.summaries();
      const wanted = collections.find((c) => String(c.id) === query.collection);
      const next = wanted ? `/?collection=${wanted.id}` : "/";
      const { name, url } = sharedLink(query);
      return form(shelf, { name, url, description: "", favorite: false, collectionIds: wanted ? [wanted.id] : [] }, next, new Map());
    }), { surface: PAGE_ROUTE })
    .post("/links", ({ request, body }) => guard.form(request, async (shelf) => {
      const values = linkFormInput(body);
      const next = nextOf(request, formField(body, "next"));
      const url = values.url.trim();
      // A URL already on the shelf is said, and added only by the form's second button.
      const saved = formField(body, "anyway") === "yes" ? undefined : shelf.links.savedAs(url);
      if (saved) {
        const summaries = new Map(shelf.collections.summaries().map((collection) => [collection.id, collection]));
        return form(shelf, values, next, new Map(), undefined, 409, { link: saved, collections: saved.collectionIds.flatMap((id) => summaries.get(id) ?? []) });
      }
      const unnamed = values.name.trim() === "" && isHttpUrl(url);
      const page = unnamed && readsPages ? await capture?.fetchNow(url) : undefined;
      if (page) values.name = titleName(page.title);
      // No title to read: named after its address, and the page says so.
      const byAddress = unnamed && values.name.trim() === "";
      if (byAddress) values.name = addressName(url);
      shelf.links.create(values, clock(), page);
      return seeOther(withNotice(next, byAddress ? "link-added-address" : "link-added"));
    }), { surface: linkForm })
    .get("/links/:id/edit", ({ request, params, query }) => guard.page(request, (shelf) => {
      const link = shelf.links.get(parseId(params.id));
      const next = nextOf(request, query.next ?? `/?collection=${link.collectionIds[0]}`);
      return form(shelf, link, next, new Map(), link.id);
    }), { surface: PAGE_ROUTE })
    .post("/links/:id", ({ request, params, body }) => guard.form(request, (shelf) => {
      const id = parseId(params.id);
      return save(request, body, (values) => shelf.links.update(id, values, clock()), "link-saved");
    }), { surface: linkForm })
    .get("/links/:id/delete", ({ request, params, query }) => guard.page(request, (shelf) => {
      const link = shelf.links.get(parseId(params.id));
      return htmlResponse(linkDeletePage(shelf.viewer(), link, nextOf(request, query.next ?? `/?collection=${link.collectionIds[0]}`), shelf.trash.days));
    }), { surface: PAGE_ROUTE })
    .post("/links/:id/delete", ({ request, params, body }) => guard.form(request, (shelf) => {
      shelf.links.delete(parseId(params.id), clock());
      return seeOther(withNotice(nextOf(request, formField(body, "next")), shelf.trash.days > 0 ? "link-trashed" : "link-deleted"));
    }), { surface: PAGE_ROUTE })
    .post("/links/:id/flags", ({ request, params, body }) => guard.form(request, (shelf) => {
      const link = shelf.links.setFlags(parseId(params.id), { toRead: flagField(body, "toRead"), archived: flagField(body, "archived") }, clock());
      if (!wantsJson(request)) return seeOther(nextOf(request, formField(body, "next")));
      const count = shelf.links.toReadCount();
      return Response.json({ link: { id: link.id, toRead: link.toRead, archived: link.archived }, toRead: count, toReadLabel: formatNumber(count), buttons: flagButtons(link).value });
    }), { surface: PAGE_ROUTE })
    .post("/links/:id/favorite", ({ request, params, body }) => guard.form(request, (shelf) => {
      shelf.links.toggleFavorite(parseId(params.id), clock());
      return seeOther(nextOf(request, formField(body, "next")));
    }), { surface: PAGE_ROUTE });
}
