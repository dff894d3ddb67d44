/**
 * Turning a fetched page's bytes into text: the character encoding is the one a browser would
 * pick, in the same order (a byte order mark, then the HTTP `Content-Type` charset, then a
 * `<meta charset>` or `<meta http-equiv="Content-Type">` near the top of the page), else UTF-8.
 */

/** How far into the page a `<meta>` naming the encoding is looked for (browsers look at the first 1024 bytes; some pages put it later). */
const META_SCAN_BYTES = 4096;

/** The charset parameter of a `Content-Type` value (`text/html; charset="Shift_JIS"`), or undefined. */
export function charsetOf(contentType: string | null | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType ?? "");
  const label = (match?.[1] ?? match?.[2] ?? "").trim();
  return label === "" ? undefined : label;
}

type Label = ConstructorParameters<typeof TextDecoder>[0];

/** decoderFor is a TextDecoder for an encoding label, or undefined when the label names none Bun knows. */
function decoderFor(label: string | undefined): TextDecoder | undefined {
  if (label === undefined) return undefined;
  try {
    const decoder = new TextDecoder(label as Label);
    // A page cannot declare itself UTF-16 in ASCII-compatible bytes; browsers read such a declaration as UTF-8.
    return decoder.encoding.startsWith("utf-16") ? new TextDecoder("utf-8") : decoder;
  } catch {
    return undefined;
  }
}

/** metaCharset is the encoding a `<meta>` in the first bytes of the page declares, or undefined. */
export function metaCharset(bytes: Uint8Array): string | undefined {
  // Latin-1 keeps every byte as one character, so ASCII markup reads the same whatever the encoding.
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, META_SCAN_BYTES));
  for (const tag of head.matchAll(/<meta\b[^>]*>/gi)) {
    const text = tag[0];
    const direct = /\bcharset\s*=\s*["']?\s*([^\s"'\/>;]+)/i.exec(text);
    if (direct && !/\bhttp-equiv\b/i.test(text)) return direct[1];
    if (/\bhttp-equiv\s*=\s*["']?content-type/i.test(text)) {
      const content = /\bcontent\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]*))/i.exec(text);
      const label = charsetOf(content?.[1] ?? content?.[2] ?? content?.[3]);
      if (label !== undefined) return label;
    }
  }
  return undefined;
}

/** bomEncoding names the encoding a byte order mark announces, or undefined. */
function bomEncoding(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  return undefined;
}

/**
 * decodePage decodes a page's bytes: a byte order mark decides first, then the HTTP charset,
 * then the page's own `<meta>`, else UTF-8. A label no decoder knows is skipped. Bytes that
 * are not valid in the chosen encoding become U+FFFD; decoding never throws.
 */
export function decodePage(bytes: Uint8Array, contentType?: string | null): string {
  const bom = bomEncoding(bytes);
  if (bom !== undefined) return new TextDecoder(bom as Label).decode(bytes);
  const decoder = decoderFor(charsetOf(contentType)) ?? decoderFor(metaCharset(bytes)) ?? new TextDecoder("utf-8");
  return decoder.decode(bytes);
}
