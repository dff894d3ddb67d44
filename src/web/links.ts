import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import { ValidationFailed } from "../errors";
import { ownOrigin, safeNext } from "../request/origin";
import { parseId } from "../ids";
import { fieldErrorsOf, type FieldErrors } from "../pages/form";
import { formField, formValues } from "../request/form-body";
import { htmlResponse } from "../pages/html";
import { linkDeletePage, linkFormPage, type LinkFormValues } from "../pages/links";
import { LINK_LIMITS } from "../links/model";
import { cleanName, isHttpUrl } from "../rules";
import { NOT_YOUR_COLLECTIONS } from "../shelf/scope";
import type { Shelf } from "../shelf/shelf";
import { seeOther, type PageGuard } from "./guard";
import { withNotice, type NoticeCode } from "./notices";

/** linkFormInput reads a link form as typed; ids that are not numbers are refused like unknown ones. */
function linkFormInput(body: unknown): { values: LinkFormValues; badIds: boolean } {
  const rawIds = formValues(body, "collectionIds");
  const ids = rawIds.filter((id) => /^[1-9][0-9]{0,15}$/.test(id)).map(Number);
  return {
    values: {
      name: formField(body, "name"),
      url: formField(body, "url"),
      description: formField(body, "description"),
      favorite: formField(body, "favorite") !== "",
      collectionIds: ids,
    },
    badIds: ids.length !== rawIds.length,
  };
}

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
 * linkPages: add (`/links/new`), edit (`/links/:id/edit`), delete (`/links/:id/delete`, a
 * confirmation form) and the favorite toggle of the lists. Every write calls the links
 * service, the API's own write path; a refusal shows the form again, as typed, with the
 * service's messages beside the fields (422). A link added without a name is named after its
 * page's title, fetched then and there (then kept as the page's captured content); when that
 * fails, the name is missing as before.
 */
export function linkPages({ config, clock, peerAddress, capture }: AppDeps, guard: PageGuard) {
  const nextOf = (request: Request, value: unknown) => safeNext(value, ownOrigin(request, { config, peerAddress }));

  const form = (shelf: Shelf, values: LinkFormValues, next: string, errors: FieldErrors, linkId?: number, status = 200) =>
    htmlResponse(linkFormPage({ user: shelf.user, linkId, values, collections: shelf.collections.summaries(), errors, next }), { status });

  /** save runs a service write; a validation failure (plus a garbage id) is the form again. */
  const save = async (request: Request, shelf: Shelf, body: unknown, write: (values: LinkFormValues) => void | Promise<void>, done: NoticeCode, linkId?: number) => {
    const { values, badIds } = linkFormInput(body);
    const next = nextOf(request, formField(body, "next"));
    try {
      // The service never sees ids that are not numbers: only that is reported, as the API would.
      if (badIds) throw new ValidationFailed([{ path: "/collectionIds", message: NOT_YOUR_COLLECTIONS }]);
      await write(values);
    } catch (error) {
      if (!(error instanceof ValidationFailed)) throw error;
      return form(shelf, values, next, fieldErrorsOf(error.errors), linkId, 422);
    }
    return seeOther(withNotice(next, done));
  };

  return new Elysia()
    .get("/links/new", ({ request, query }) => guard.page(request, (shelf) => {
      const collections = shelf.collections.summaries();
      const wanted = collections.find((c) => String(c.id) === query.collection);
      const next = wanted ? `/?collection=${wanted.id}` : "/";
      const { name, url } = sharedLink(query);
      return form(shelf, { name, url, description: "", favorite: false, collectionIds: wanted ? [wanted.id] : [] }, next, new Map());
    }))
    .post("/links", ({ request, body }) => guard.form(request, (shelf) =>
      save(request, shelf, body, async (values) => {
        const url = values.url.trim();
        const page = values.name.trim() === "" && isHttpUrl(url) ? await capture?.fetchNow(url) : undefined;
        if (page) values.name = titleName(page.title);
        const link = shelf.links.create(values, clock());
        capture?.enqueue(link.id, shelf.user.id, link.url, page);
      }, "link-added")))
    .get("/links/:id/edit", ({ request, params, query }) => guard.page(request, (shelf) => {
      const link = shelf.links.get(parseId(params.id));
      const next = nextOf(request, query.next ?? `/?collection=${link.collectionIds[0]}`);
      return form(shelf, link, next, new Map(), link.id);
    }))
    .post("/links/:id", ({ request, params, body }) => guard.form(request, (shelf) => {
      const id = parseId(params.id);
      const { url } = shelf.links.get(id); // another user's link is a 404 before anything about the form
      return save(request, shelf, body, (values) => {
        shelf.links.update(id, values, clock());
        if (values.url.trim() !== url) capture?.enqueue(id, shelf.user.id, values.url.trim());
      }, "link-saved", id);
    }))
    .get("/links/:id/delete", ({ request, params, query }) => guard.page(request, (shelf) => {
      const link = shelf.links.get(parseId(params.id));
      return htmlResponse(linkDeletePage(shelf.user, link, nextOf(request, query.next ?? `/?collection=${link.collectionIds[0]}`)));
    }))
    .post("/links/:id/delete", ({ request, params, body }) => guard.form(request, (shelf) => {
      shelf.links.delete(parseId(params.id));
      return seeOther(withNotice(nextOf(request, formField(body, "next")), "link-deleted"));
    }))
    .post("/links/:id/favorite", ({ request, params, body }) => guard.form(request, (shelf) => {
      shelf.links.toggleFavorite(parseId(params.id), clock());
      return seeOther(nextOf(request, formField(body, "next")));
    }));
}
