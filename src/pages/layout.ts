import { MANIFEST_PATH, THEME_COLOR } from "../assets/manifest";
import { html, Html } from "./html";

/** The palette every page shares (light and dark). */
export const PALETTE = `
:root { color-scheme: light dark; --bg: #f6f7f9; --card: #fff; --text: #1d2330; --muted: #5b6475;
  --border: #d5d9e0; --accent: #2f5bd3; --accent-text: #fff; --error-bg: #fdecec; --error: #a1261f; }
@media (prefers-color-scheme: dark) { :root { --bg: #12151b; --card: #1b2029; --text: #e7eaf0; --muted: #9aa3b2;
  --border: #343b48; --accent: #7c9cff; --accent-text: #0d1220; --error-bg: #3a1d1d; --error: #ffb4ab; } }
* { box-sizing: border-box; }
`;

const STYLE = `${PALETTE}
body { margin: 0; min-height: 100vh; display: grid; place-items: center; padding: 1.5rem;
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: var(--bg); color: var(--text); }
main { width: 100%; max-width: 24rem; background: var(--card); border: 1px solid var(--border);
  border-radius: 12px; padding: 1.75rem; box-shadow: 0 1px 3px rgb(0 0 0 / 8%); }
h1 { font-size: 1.35rem; margin: 0 0 .25rem; }
p { margin: .25rem 0 1rem; color: var(--muted); }
.brand { font-weight: 600; color: var(--accent); letter-spacing: .02em; margin-bottom: 1rem; }
label { display: block; font-weight: 600; font-size: .9rem; margin: 1rem 0 .3rem; }
input { width: 100%; font: inherit; padding: .6rem .7rem; border: 1px solid var(--border); border-radius: 8px;
  background: var(--bg); color: var(--text); }
input:focus-visible, button:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
button { margin-top: 1.5rem; width: 100%; font: inherit; font-weight: 600; padding: .65rem; border: 0;
  border-radius: 8px; background: var(--accent); color: var(--accent-text); cursor: pointer; }
.notice { background: var(--bg); border: 1px solid var(--border); border-radius: 8px; padding: .6rem .8rem; margin: 1rem 0 0; color: var(--text); }
.error { background: var(--error-bg); color: var(--error); border-radius: 8px; padding: .6rem .8rem; margin: 1rem 0 0; }
code { font-size: .9em; word-break: break-all; }
`;

/**
 * documentHead opens every page's document up to its `<head>`'s last element: language,
 * charset, phone viewport, light and dark colour schemes, the icons, the web app manifest,
 * the title and the page's style.
 * The caller adds what else its head needs, then closes it.
 */
export function documentHead(title: string, style: string): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="theme-color" content="${THEME_COLOR}">
<link rel="icon" href="/favicon.ico" sizes="16x16 32x32 48x48">
<link rel="icon" href="/icon.svg" type="image/svg+xml">
<link rel="apple-touch-icon" href="/icons/icon-180.png">
<link rel="manifest" href="${MANIFEST_PATH}">
<title>${title} · linkshelf</title>
<style>${new Html(style)}</style>`;
}

/** layout wraps a page's content in the shared document: small, phone-sized, dark-mode aware. */
export function layout(title: string, content: Html): Html {
  return html`${documentHead(title, STYLE)}
</head>
<body>
<main>
<div class="brand" aria-hidden="true">linkshelf</div>
${content}
</main>
</body>
</html>
`;
}

/** errorBox shows a message announced to screen readers. */
export function errorBox(message: string | undefined): Html | undefined {
  return message === undefined ? undefined : html`<p class="error" role="alert">${message}</p>`;
}

/** messagePage: a title and one sentence, for refusals and simple outcomes. */
export function messagePage(title: string, message: string, detail?: Html): Html {
  return layout(title, html`
<h1>${title}</h1>
<p>${message}</p>
${detail}`);
}
