/** A piece of HTML that is already escaped; plain strings interpolated into `html` are escaped. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** A whole document, which knows whether it loads a script from this server (htmlResponse's CSP follows it). */
export class Page extends Html {
  constructor(value: string, readonly loadsScript: boolean) {
    super(value);
  }
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** escapeHtml makes text safe in element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

type Part = string | number | Html | null | undefined | false | Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return "";
  if (Array.isArray(part)) return part.map(render).join("");
  if (part instanceof Html) return part.value;
  return escapeHtml(String(part));
}

/** html is a tagged template that escapes every interpolated value unless it is Html. */
export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  let out = strings[0]!;
  parts.forEach((part, i) => {
    out += render(part) + strings[i + 1]!;
  });
  return new Html(out);
}

export interface PageOptions {
  status?: number;
  headers?: Record<string, string>;
}

/**
 * Browsers apply `form-action` to every redirect that follows a form submission: signing in
 * on the way to `/extension/authorize` ends at the extension's callback host, which must be
 * allowed or the browser blocks the handoff.
 */
const FORM_ACTION = "'self' https://*.chromiumapp.org https://*.extensions.allizom.org";

/** htmlResponse sends a page; pages are never cached and may not be framed. */
export function htmlResponse(body: Html, options: PageOptions = {}): Response {
  // Scripts from this server run only in a Page that loads one; no page runs inline script.
  const script = body instanceof Page && body.loadsScript;
  return new Response(body.value, {
    status: options.status ?? 200,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Frame-Options": "DENY",
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": `default-src 'none';${script ? " script-src 'self'; connect-src 'self';" : ""} style-src 'unsafe-inline'; img-src 'self' data:; manifest-src 'self'; form-action ${FORM_ACTION}; frame-ancestors 'none'; base-uri 'none'`,
      "Referrer-Policy": "same-origin",
      ...options.headers,
    },
  });
}
