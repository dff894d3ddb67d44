/** placeholderLetter is the first letter or digit of a host (after `www.`), upper-cased; `?` if none. */
export function placeholderLetter(hostname: string): string {
  // Required here, not imported: node:url is only needed once a placeholder is drawn (it costs ~1.7 MiB at start).
  const { domainToUnicode } = require("node:url") as typeof import("node:url");
  const unicode = domainToUnicode(hostname) || hostname;
  const name = unicode.replace(/^www\./i, "");
  for (const { segment } of new Intl.Segmenter("en", { granularity: "grapheme" }).segment(name)) {
    if (/^[\p{L}\p{N}]/u.test(segment)) return segment.toLocaleUpperCase("en");
  }
  return "?";
}

/** placeholderHue derives a stable hue (0-359) from the host name (FNV-1a). */
export function placeholderHue(hostname: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(hostname.toLowerCase())) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % 360;
}

const escapeXml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!);

/**
 * placeholderSvg draws the host's first letter in white on a rounded square whose colour is
 * derived from the host, so a client always has an image to show.
 */
export function placeholderSvg(hostname: string): string {
  const letter = escapeXml(placeholderLetter(hostname));
  const fill = `hsl(${placeholderHue(hostname)}, 45%, 40%)`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">` +
    `<rect width="64" height="64" rx="12" fill="${fill}"/>` +
    `<text x="32" y="32" dy="0.35em" text-anchor="middle" fill="#fff" ` +
    `font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" font-size="36" font-weight="600">${letter}</text>` +
    `</svg>`
  );
}
