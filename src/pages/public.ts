import type { LinkJson } from "../contract/links";
import type { PublicCollectionView } from "../shelf/types";
import type { PublicChild } from "../shelf/visibility";
import { html, type Html } from "./html";
import { faviconFor, hostOf } from "./links";
import { pager, shell } from "./shell";

export interface PublicCollectionOptions {
  collection: PublicCollectionView;
  authorName: string;
  links: LinkJson[];
  /** Its PUBLIC sub-collections, each linked to its own public page. */
  children: PublicChild[];
  older?: string;
  first?: string;
}

/**
 * publicCollectionPage: a PUBLIC collection, read-only, for anyone: its PUBLIC sub-collections
 * (each a link to its own page), then its links. Links go through `/l/:id`
 * (clicks count); no click counts, favorites or edit controls are shown to visitors.
 */
export function publicCollectionPage(options: PublicCollectionOptions): Html {
  const { collection } = options;
  const feed = `/c/${collection.id}/feed`;
  const content = html`<section class="narrow card" aria-labelledby="list-heading">
<div class="heading">
<h1 id="list-heading"><span aria-hidden="true">${collection.icon}</span> ${collection.name}</h1>
<div class="actions"><a href="${feed}">Atom feed</a></div>
</div>
<p class="muted">A public collection by ${options.authorName}.</p>
${collection.description ? html`<p>${collection.description}</p>` : undefined}
${options.children.length === 0 ? undefined : html`<h2>Collections inside</h2>
<ul class="children">${options.children.map((child) => html`<li><span aria-hidden="true">${child.icon}</span> <a href="/c/${child.id}">${child.name}</a></li>`)}</ul>`}
${options.links.length === 0 ? html`<p class="empty">No links here yet.</p>` : html`<ul class="links public">
${options.links.map((link) => html`<li>
${faviconFor(link.url)}
<div>
<a class="title" href="/l/${link.id}">${link.name}</a>
<div class="host">${hostOf(link.url)}</div>
${link.description ? html`<p class="description">${link.description}</p>` : undefined}
</div>
</li>`)}
</ul>`}
${pager(options)}
</section>`;
  return shell({
    title: collection.name,
    user: null,
    content,
    head: html`<link rel="alternate" type="application/atom+xml" title="${collection.name}" href="${feed}">`,
  });
}
