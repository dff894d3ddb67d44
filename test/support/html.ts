/**
 * Reading the web pages in tests through `app.handle`: open a page or submit a form as a
 * browser does, and read the text and attributes of the elements a selector picks.
 */
import { createSession } from "../../src/auth/sessions";
import type { TestEnv, TestUser } from "./helpers";

export type Fields = Record<string, string | string[]>;

/** cookieFor signs a user in (a session made directly; the sign-in form has its own tests). */
export function cookieFor(env: TestEnv, as: TestUser): string {
  return `linkshelf_session=${createSession(env.db, as.user.id, env.clock.now).id}`;
}

export interface PageResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** open GETs a page as a browser would (Accept: text/html). */
export async function open(env: TestEnv, path: string, cookie?: string): Promise<PageResponse> {
  const headers: Record<string, string> = { accept: "text/html" };
  if (cookie) headers.cookie = cookie;
  const response = await env.app.handle(new Request(`http://localhost${path}`, { headers }));
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** submit POSTs a form from this site (Origin: http://localhost) unless `origin` says otherwise. */
export async function submit(env: TestEnv, path: string, fields: Fields, cookie?: string, origin: string | null = "http://localhost"): Promise<PageResponse> {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) for (const one of [value].flat()) body.append(name, one);
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "text/html" };
  if (cookie) headers.cookie = cookie;
  if (origin !== null) headers.origin = origin;
  const response = await env.app.handle(new Request(`http://localhost${path}`, { method: "POST", headers, body: body.toString() }));
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" };
const decode = (text: string) => text.replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => ENTITIES[name]!);

/** texts collects the decoded text of every element matching a selector (the text of the elements inside it included). */
export function texts(page: string, selector: string): string[] {
  const found: string[] = [];
  new HTMLRewriter().on(selector, {
    element: (element) => {
      found.push("");
      const index = found.length - 1;
      element.onEndTag(() => void (found[index] = decode(found[index]!).trim()));
    },
    text: (chunk) => void (found[found.length - 1] += chunk.text),
  }).transform(page);
  return found;
}

/** attributes collects the (decoded) attributes of every element matching a selector. */
export function attributes(page: string, selector: string): Record<string, string>[] {
  const found: Record<string, string>[] = [];
  new HTMLRewriter().on(selector, {
    element: (element) => void found.push(Object.fromEntries([...element.attributes].map(([name, value]) => [name, decode(value)]))),
  }).transform(page);
  return found;
}

/** valueOf is the value of the input with that id. */
export const valueOf = (page: string, id: string) => attributes(page, `#${id}`)[0]?.value;
/** errorOf is the message shown beside the field with that id. */
export const errorOf = (page: string, id: string) => texts(page, `#${id}-error`)[0];
