/** The "Link health" page: broken and moved links with the checker's evidence, and what to do about each. */
import type { Viewer } from "../shelf/shelf";
import type { HealthCheckJson, LinkHealthJson } from "../contract/link-health";
import type { CheckRule } from "../shelf/link-checks";
import { html, type Html } from "./html";
import { copyOffer, faviconFor, hostOf, whenExactly } from "./links";
import { shell } from "./shell";
import { countOf } from "../common/format";

export interface HealthPageOptions {
  user: Viewer;
  broken: LinkHealthJson[];
  moved: LinkHealthJson[];
  /** Links whose health is not flagged: their checks go on, and Un-ignore flags them again. */
  ignored: LinkHealthJson[];
  notice?: string | Html;
  /** How often the server checks each link (null when it does not) and what makes a link broken. */
  rule: CheckRule;
}

const UNITS = [["day", 86_400_000], ["hour", 3_600_000], ["minute", 60_000], ["second", 1000]] as const;

/** spanOf is a span in the largest unit that divides it whole: [7, "day"], [90, "second"]. */
function spanOf(ms: number): [number, string] {
  const [unit, size] = UNITS.find(([, size]) => ms % size === 0) ?? UNITS[3];
  return [Math.max(1, Math.round(ms / size)), unit];
}

/** spanText says a span with its number: `1 day`, `7 days`. */
function spanText(ms: number): string {
  const [amount, unit] = spanOf(ms);
  return countOf(amount, unit);
}

/** everyText says how often: `every day`, `every 12 hours`. */
function everyText(ms: number): string {
  const [amount, unit] = spanOf(ms);
  return amount === 1 ? `every ${unit}` : `every ${spanText(ms)}`;
}

/** confirmText says the confirm rule in force: `3 failures over 7 days, ...`, `3 failures in a row`, `its first failure`. */
function confirmText({ confirmFailures: failures, confirmSpanMs: span }: CheckRule): string {
  if (span === 0) return failures === 1 ? "its first failure" : `${failures} failures in a row`;
  return `${failures === 1 ? "failing for" : `${failures} failures over`} ${spanText(span)}, with no success in between`;
}

/** archiveOf is the Wayback Machine's address of the newest archived copy of `url` (the browser fetches it, never the server). */
export const archiveOf = (url: string) => `https://web.archive.org/web/2/${url}`;

/** postButton is a one-button form to one of a link's health actions; `next` is the page it returns to (the health page when absent). */
const postButton = (action: string, label: string, aria: string, kind = "secondary", next?: string) =>
  html`<form method="post" action="${action}">${next ? html`<input type="hidden" name="next" value="${next}">` : undefined}<button type="submit" class="${kind}" aria-label="${aria}">${label}</button></form>`;

/** healthButtons are the buttons every link's health offers: check it now, and ignore it or flag it again. */
export function healthButtons(link: { id: number; name: string }, ignored: boolean, next?: string): Html {
  return html`${postButton(`/health/${link.id}/check`, "Check now", `Check ${link.name} now`, "secondary", next)}
${ignored
    ? postButton(`/health/${link.id}/unignore`, "Un-ignore", `Flag ${link.name} again when it fails`, "secondary", next)
    : postButton(`/health/${link.id}/ignore`, "Ignore", `Stop flagging ${link.name}`, "secondary", next)}`;
}

/** resultOf says what one check found: the status, and what happened when that says more. */
export function resultOf(check: HealthCheckJson): string {
  const status = check.status === null ? "no answer" : `HTTP ${check.status}`;
  return check.detail === status ? status : `${status}: ${check.detail}`;
}

/** evidence is what the checks found: the last result, the first failure, the last check, how many tries. */
function evidence({ health }: LinkHealthJson): Html {
  const last = health.checks[0];
  const failures = health.checks.filter((check) => check.outcome !== "ok" && check.outcome !== "moved").length;
  return html`<dl class="facts evidence">
<dt>Last result</dt><dd>${last ? resultOf(last) : "none"}</dd>
${health.since ? html`<dt>Failing since</dt><dd>${whenExactly(health.since)}</dd>` : undefined}
<dt>Last check</dt><dd>${health.lastCheckedAt ? whenExactly(health.lastCheckedAt) : "never"}</dd>
<dt>Tries</dt><dd>${health.broken ? `${failures} failed in a row` : `${countOf(health.checks.length, "check")} kept`}</dd>
</dl>`;
}

/** stateBadge names a link's health in a word: broken, moved, ignored (with what it is), or its last outcome. */
export function stateBadge(health: LinkHealthJson["health"]): Html {
  if (health.ignored) return html`<span class="badge">ignored${health.state === "ok" || health.state === "unchecked" ? "" : ` · ${health.state}`}</span>`;
  if (health.broken) return html`<span class="badge broken">⚠ broken</span>`;
  return html`<span class="badge">${health.state}</span>`;
}

/** healthItem is one broken, moved or ignored link with its evidence and its actions. */
function healthItem(item: LinkHealthJson): Html {
  const { link, health } = item;
  return html`<li>
${faviconFor(link.url)}
<div>
<a class="title" href="/links/${link.id}">${link.name}</a> ${stateBadge(health)}
<div class="host url">${link.url}</div>
${health.movedTo ? html`<p class="description">Now at <strong>${health.movedTo}</strong></p>` : undefined}
${evidence(item)}
<div class="health-actions">
${health.movedTo ? postButton(`/health/${link.id}/use-new-url`, "Use the new URL", `Use the new URL for ${link.name}`, "") : undefined}
${health.broken ? copyOffer(link) : undefined}
<a href="${archiveOf(link.url)}" rel="noreferrer noopener">Archived copy</a>
${healthButtons(link, health.ignored)}
<a href="/links/${link.id}/delete?next=%2Fhealth" aria-label="Delete ${link.name}">Delete…</a>
</div>
</div>
<div class="row-actions"><span class="muted">${hostOf(link.url)}</span></div>
</li>`;
}

/** section is one list of the page, or a sentence when it is empty. */
const section = (id: string, title: string, items: LinkHealthJson[], empty: string) => html`<section class="card health-section" aria-labelledby="${id}">
<div class="heading"><h2 id="${id}">${title} (${items.length})</h2></div>
${items.length === 0 ? html`<p class="empty">${empty}</p>` : html`<ul class="links">${items.map(healthItem)}</ul>`}
</section>`;

/** healthPage: the broken links, then the moved ones. */
export function healthPage(options: HealthPageOptions): Html {
  const content = html`<div class="card">
${options.notice ? html`<p class="notice" role="status">${options.notice}</p>` : undefined}
<div class="heading"><h1>Link health</h1></div>
<p class="hint">${options.rule.periodMs !== null
    ? `The server checks each link about ${everyText(options.rule.periodMs)}.`
    : "The server checks no links in the background (LINKSHELF_LINK_CHECK=off); “Check now” still checks one."} A link is called broken after ${confirmText(options.rule)}; one success clears it.</p>
</div>
${section("broken-heading", "Broken", options.broken, "No broken links.")}
${section("moved-heading", "Moved", options.moved, "No moved links.")}
${section("ignored-heading", "Ignored", options.ignored, "No ignored links: every failing link is flagged.")}`;
  return shell({ title: "Link health", user: options.user, content });
}
