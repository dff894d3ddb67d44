/**
 * Image types the favicon proxy passes on, recognised by their first bytes only: what the
 * origin claims in `Content-Type` is never trusted.
 */

export type IconType = "image/png" | "image/x-icon" | "image/gif" | "image/jpeg" | "image/webp" | "image/svg+xml";

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0) =>
  bytes.length >= at + prefix.length && prefix.every((byte, i) => bytes[at + i] === byte);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const GIF87 = ascii("GIF87a");
const GIF89 = ascii("GIF89a");
const JPEG = [0xff, 0xd8, 0xff];
const RIFF = ascii("RIFF");
const WEBP = ascii("WEBP");

/** sniffIcon returns the real type of an icon's bytes, or null when they are none of the accepted images. */
export function sniffIcon(bytes: Uint8Array): IconType | null {
  if (startsWith(bytes, PNG)) return "image/png";
  if (startsWith(bytes, GIF87) || startsWith(bytes, GIF89)) return "image/gif";
  if (startsWith(bytes, JPEG)) return "image/jpeg";
  if (startsWith(bytes, RIFF) && startsWith(bytes, WEBP, 8)) return "image/webp";
  // ICONDIR: reserved 0, type 1 (icon), at least one image.
  if (startsWith(bytes, [0, 0, 1, 0]) && bytes.length >= 6 && (bytes[4]! | (bytes[5]! << 8)) > 0) return "image/x-icon";
  if (isSvgDocument(bytes)) return "image/svg+xml";
  return null;
}

/**
 * isSvgDocument: is the root element of this (UTF-8) XML text `<svg`? Only a BOM, white
 * space, an XML declaration, processing instructions, comments and a DOCTYPE may come
 * first, so an HTML page (`<!DOCTYPE html>`, `<html>`, `<head>`...) never qualifies.
 */
export function isSvgDocument(bytes: Uint8Array): boolean {
  const text = new TextDecoder("utf-8", { fatal: false, ignoreBOM: false }).decode(bytes.subarray(0, 4096));
  let i = 0;
  const skipSpace = () => {
    while (i < text.length && " \t\r\n".includes(text[i]!)) i++;
  };
  for (;;) {
    skipSpace();
    if (text.startsWith("<?", i)) {
      const end = text.indexOf("?>", i + 2);
      if (end === -1) return false;
      i = end + 2;
    } else if (text.startsWith("<!--", i)) {
      const end = text.indexOf("-->", i + 4);
      if (end === -1) return false;
      i = end + 3;
    } else if (text.startsWith("<!DOCTYPE", i)) {
      // The DOCTYPE must name svg as its root; an internal subset is not accepted.
      const end = text.indexOf(">", i);
      if (end === -1) return false;
      const doctype = text.slice(i + "<!DOCTYPE".length, end);
      if (doctype.includes("[") || doctype.trim().split(/\s+/)[0] !== "svg") return false;
      i = end + 1;
    } else {
      break;
    }
  }
  if (!text.startsWith("<svg", i)) return false;
  const after = text[i + 4];
  return after !== undefined && " \t\r\n>/".includes(after);
}
