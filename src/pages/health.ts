/** The "Link health" page: broken and moved links with the checker's evidence, and what to do about each. */
import type { Viewer } from "../shelf/shelf";
import type { HealthCheck, LinkHealth } from "../health/model";
import { html, type Html } from "./html";
import { faviconFor, hostOf, when } from "./links";
import { shell } from "./shell";

export interface HealthPageOptions {
  user: Viewer;
  broken: LinkHealth[];
  moved: LinkHealth[];
  notice?: string;
  /** How often the server checks each link (`LINKSHELF_LINK_CHECK`); null when it does not. */
  periodMs: number | null;
}

/** periodText says a period in whole days, else hours, else minutes. */
function periodText(ms: number): string {
  const [amount, unit] = ms % 86_400_000 === 0 ? [ms / 86_400_000, "day"] : ms % 3_600_000 === 0 ? [ms / 3_600_000, "hour"] : [Math.max(1, Math.round(ms / 60_000)), "minute"];
  return amount === 1 ? unit : `${amount} ${unit}s`;
}

/** archiveOf is the Wayback Machine's address of the newest archived copy of `url` (the browser fetches it, never the server). */
export const archiveOf = (url: string) => `https://web.archive.org/web/2/${url}`;

/** postButton is a one-button form to one of the page's actions. */
const postButton = (action: string, label: string, aria: string, kind = "secondary") =>
  html`<form method="post" action="${action}"><button type="submit" class="${kind}" aria-label="${aria}">${label}</button></form>`;

/** resultOf says what one check found: the status, and what happened when that says more. */
function resultOf(check: HealthCheck): string {
  const status = check.status === null ? "no answer" : `HTTP ${check.status}`;
  return check.detail === status ? status : `${status}: ${check.detail}`;
}

/** evidence is what the checks found: the last result, the first failure, the last check, how many tries. */
function evidence({ health }: LinkHealth): Html {
  const last = health.checks[0];
  const failures = health.checks.filter((check) => check.outcome !== "ok" && check.outcome !== "moved").length;
  return html`<dl class="facts evidence">
<dt>Last result</dt><dd>${last ? resultOf(last) : "none"}</dd>
${health.since ? html`<dt>Failing since</dt><dd>${when(health.since)}</dd>` : undefined}
<dt>Last check</dt><dd>${health.lastCheckedAt ? when(health.lastCheckedAt) : "never"}</dd>
<dt>Tries</dt><dd>${health.broken ? `${failures} failed in a row` : `${health.checks.length} ${health.checks.length === 1 ? "check" : "checks"} kept`}</dd>
</dl>`;
}

/** healthItem is one broken or moved link with its evidence and its actions. */
function healthItem(item: LinkHealth): Html {
  const { link, health } = item;
  return html`<li>
${faviconFor(link.url)}
<div>
<a class="title" href="/links/${link.id}">${link.name}</a> ${health.broken ? html`<span class="badge broken">⚠ broken</span>` : html`<span class="badge">moved</span>`}
<div class="host url">${link.url}</div>
${health.movedTo ? html`<p class="description">Now at <strong>${health.movedTo}</strong></p>` : undefined}
${evidence(item)}
<div class="health-actions">
${health.movedTo ? postButton(`/health/${link.id}/use-new-url`, "Use the new URL", `Use the new URL for ${link.name}`, "") : undefined}
<a href="${archiveOf(link.url)}" rel="noreferrer noopener">Archived copy</a>
${postButton(`/health/${link.id}/check`, "Check now", `Check ${link.name} now`)}
${postButton(`/health/${link.id}/ignore`, "Ignore", `Stop flagging ${link.name}`)}
<a href="/links/${link.id}/delete?next=%2Fhealth" aria-label="Delete ${link.name}">Delete…</a>
</div>
</div>
<div class="row-actions"><span class="muted">${hostOf(link.url)}</span></div>
</li>`;
}

/** section is one list of the page, or a sentence when it is empty. */
const section = (id: string, title: string, items: LinkHealth[], empty: string) => html`<section class="card health-section" aria-labelledby="${id}">
<div class="heading"><h2 id="${id}">${title} (${items.length})</h2></div>
${items.length === 0 ? html`<p class="empty">${empty}</p>` : html`<ul class="links">${items.map(healthItem)}</ul>`}
</section>`;

/** healthPage: the broken links, then the moved ones. */
export function healthPage(options: HealthPageOptions): Html {
  const content = html`<div class="card">
${options.notice ? html`<p class="notice" role="status">${options.notice}</p>` : undefined}
<div class="heading"><h1>Link health</h1></div>
<p class="hint">${options.periodMs !== null
    ? `The server checks each link about every ${periodText(options.periodMs)}. A link is called broken only after it failed several checks in a row over several days; one success clears it.`
    : "The server checks no links in the background (LINKSHELF_LINK_CHECK=off); “Check now” still checks one."}</p>
</div>
${section("broken-heading", "Broken", options.broken, "No broken links.")}
${section("moved-heading", "Moved", options.moved, "No moved links.")}`;
  return shell({ title: "Link health", user: options.user, content });
}
