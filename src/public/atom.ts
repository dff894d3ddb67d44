import { iso } from "../common/timestamps";
import type { LinkJson } from "../contract/links";
import type { PublicCollectionView } from "../shelf/types";

/**
 * Characters XML 1.0 does not allow at all (C0 controls but tab, LF and CR; lone surrogates;
 * U+FFFE/U+FFFF). Escaping cannot represent them, and a stored name may contain them, so they
 * are dropped: one stray control character must not make the whole feed unreadable.
 */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const XML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

/** escapeXml makes text safe in XML element content and quoted attributes. */
export function escapeXml(text: string): string {
  return text.replace(NOT_XML, "").replace(/[&<>"']/g, (char) => XML_ESCAPES[char]!);
}

export interface FeedInput {
  collection: PublicCollectionView;
  authorName: string;
  /** Newest first. */
  links: LinkJson[];
  /** This server's origin as the client sees it (`http://192.168.1.20:3000`). */
  origin: string;
}

/**
 * atomFeed renders a public collection as an Atom 1.0 feed (RFC 4287). Ids are the
 * permanent addresses on this server (`/c/:id`, `/l/:id`); each entry links through `/l/:id`
 * so a click from a feed reader counts too. `updated` is the newest change of the collection
 * or of any entry.
 */
export function atomFeed({ collection, authorName, links, origin }: FeedInput): string {
  const page = `${origin}/c/${collection.id}`;
  const updated = Math.max(collection.updatedAt, ...links.map((link) => Date.parse(link.updatedAt)));
  const entries = links.map((link) => {
    const address = `${origin}/l/${link.id}`;
    return `<entry>
<id>${escapeXml(address)}</id>
<title type="text">${escapeXml(link.name)}</title>
<link rel="alternate" href="${escapeXml(address)}"/>
<published>${link.createdAt}</published>
<updated>${link.updatedAt}</updated>
${link.description ? `<summary type="text">${escapeXml(link.description)}</summary>\n` : ""}</entry>`;
  });
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
<id>${escapeXml(page)}</id>
<title type="text">${escapeXml(collection.name)}</title>
${collection.description ? `<subtitle type="text">${escapeXml(collection.description)}</subtitle>\n` : ""}<updated>${iso(updated)}</updated>
<author><name>${escapeXml(authorName)}</name></author>
<link rel="self" type="application/atom+xml" href="${escapeXml(`${page}/feed`)}"/>
<link rel="alternate" type="text/html" href="${escapeXml(page)}"/>
<generator>linkshelf</generator>
${entries.join("\n")}
</feed>
`;
}
