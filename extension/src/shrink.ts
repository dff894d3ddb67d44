/**
 * Making a copy's photos no larger than the page showed them: an image stored larger than it was
 * rendered (a 2400-pixel photo in a 700-pixel column, as responsive pages commonly send) is drawn
 * again at the size it was shown, times the screen's pixel ratio (at least 1, never larger than it
 * is), and encoded again: WebP where the browser encodes it, else JPEG for an opaque image and PNG
 * for one with transparency, quality 0.8. The new bytes are kept only when they are fewer.
 *
 * The image is decoded from the bytes the copy maker already read (`createImageBitmap` of a Blob),
 * never from the element, so another site's image does not taint the canvas. Left as they are: SVG
 * (drawn at any size), GIF (it may move), images of fewer than TINY_IMAGE_BYTES, and any image the
 * browser cannot decode or encode here.
 */

/** Images smaller than this are kept as they are: nothing worth a decode and an encode. */
export const TINY_IMAGE_BYTES = 8 * 1024;
/** The quality of the lossy encodings (WebP, JPEG). */
export const SHRINK_QUALITY = 0.8;
/** Types never drawn again: SVG has no pixel size, a GIF may be animated. */
const KEPT_TYPES = /^image\/(svg\+xml|gif)$/i;

/** The size, in device pixels, an image must keep to look as it did: its rendered size × the pixel ratio. */
export interface Needed {
  width: number;
  height: number;
}

/** A `data:` URL's media type and bytes; null when it is not base64 or not an image. */
function parseData(data: string): { type: string; bytes: Uint8Array<ArrayBuffer> } | null {
  const match = /^data:([^;,]*)(?:;[^,]*)?;base64,/i.exec(data);
  if (!match || !/^image\//i.test(match[1]!)) return null;
  const binary = atob(data.slice(match[0].length));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return { type: match[1]!.toLowerCase(), bytes };
}

/** dataUrlOf reads a Blob as a `data:` URL (null when the browser cannot read it). */
export function dataUrlOf(window: Window & typeof globalThis, blob: Blob): Promise<string | null> {
  return new Promise((resolve) => {
    const reader = new window.FileReader();
    reader.onload = () => resolve(typeof reader.result === "string" ? reader.result : null);
    reader.onerror = () => resolve(null);
    reader.readAsDataURL(blob);
  });
}

const encode = (canvas: HTMLCanvasElement, type: string): Promise<Blob | null> =>
  new Promise((resolve) => canvas.toBlob(resolve, type, SHRINK_QUALITY));

/** hasAlpha: does any pixel of the canvas let what is behind it show through? */
function hasAlpha(context: CanvasRenderingContext2D, width: number, height: number): boolean {
  const pixels = context.getImageData(0, 0, width, height).data;
  for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! < 255) return true;
  return false;
}

/**
 * shrinkImage is `data` (an image as a `data:` URL) drawn again at the smallest size that still
 * gives `needed` device pixels in both directions (its proportions kept), when that is smaller than
 * it is and the new encoding takes fewer bytes; else `data` itself.
 */
export async function shrinkImage(window: Window & typeof globalThis, data: string, needed: Needed): Promise<string> {
  const image = parseData(data);
  if (!image || KEPT_TYPES.test(image.type) || image.bytes.byteLength < TINY_IMAGE_BYTES) return data;
  let bitmap: ImageBitmap;
  try {
    bitmap = await window.createImageBitmap(new window.Blob([image.bytes], { type: image.type }));
  } catch {
    return data;
  }
  try {
    const scale = Math.max(needed.width / bitmap.width, needed.height / bitmap.height);
    if (!(scale > 0 && scale < 1)) return data;
    const width = Math.max(1, Math.ceil(bitmap.width * scale));
    const height = Math.max(1, Math.ceil(bitmap.height * scale));
    const canvas = window.document.createElement("canvas");
    canvas.width = width;
    canvas.height = height;
    const context = canvas.getContext("2d");
    if (!context) return data;
    context.imageSmoothingEnabled = true;
    context.imageSmoothingQuality = "high";
    context.drawImage(bitmap, 0, 0, width, height);
    // A browser that cannot encode WebP answers PNG: then JPEG when nothing shows through, else PNG.
    let blob = await encode(canvas, "image/webp");
    if (!blob || blob.type !== "image/webp") {
      blob = await encode(canvas, image.type === "image/jpeg" || !hasAlpha(context, width, height) ? "image/jpeg" : "image/png");
    }
    if (!blob || blob.size >= image.bytes.byteLength) return data;
    return (await dataUrlOf(window, blob)) ?? data;
  } catch {
    return data;
  } finally {
    bitmap.close();
  }
}
