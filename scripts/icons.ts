/**
 * `npm run icons`: rasterizes the one source drawing, assets/icon.svg, into every icon the
 * project ships, with the installed Chromium (playwright-core, no other dependency):
 *   assets/icons/icon-<size>.png  the web app manifest's and the pages' icons (and apple-touch-icon)
 *   assets/favicon.ico            16, 32 and 48 px PNG images in one ICO file
 *   extension/static/icons/       the extension's toolbar icons (16, 32, 48, 128 px)
 * and records the drawing's SHA-256 in assets/icons/source.sha256, which a test compares
 * with the drawing, so the outputs cannot silently fall behind it. Run it after editing the drawing
 * and commit what it writes.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

const ROOT = join(import.meta.dir, "..");
export const SOURCE = join(ROOT, "assets", "icon.svg");
export const ICON_DIR = join(ROOT, "assets", "icons");
export const FAVICON = join(ROOT, "assets", "favicon.ico");
export const EXTENSION_ICON_DIR = join(ROOT, "extension", "static", "icons");
export const SOURCE_HASH = join(ICON_DIR, "source.sha256");
/** Every size drawn; the web app manifest uses 192 and 512, iOS 180, the extension 16 to 128. */
export const SIZES = [16, 32, 48, 128, 180, 192, 512] as const;
export const EXTENSION_SIZES = [16, 32, 48, 128] as const;
export const FAVICON_SIZES = [16, 32, 48] as const;

/** sha256 of the drawing, as recorded beside the outputs. */
export const sourceHash = (svg: Uint8Array | string) => new Bun.CryptoHasher("sha256").update(svg).digest("hex");

/**
 * icoOf packs PNG images into one ICO file: a 6-byte header (reserved 0, type 1 = icon,
 * count), one 16-byte directory entry per image (width and height, 0 meaning 256; no palette;
 * 1 plane; 32 bits per pixel; byte size; offset), then the PNGs as they are.
 */
export function icoOf(images: { size: number; png: Uint8Array }[]): Uint8Array {
  const header = 6 + 16 * images.length;
  const total = header + images.reduce((sum, image) => sum + image.png.length, 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint16(0, 0, true);
  view.setUint16(2, 1, true);
  view.setUint16(4, images.length, true);
  let offset = header;
  images.forEach((image, i) => {
    const entry = 6 + 16 * i;
    view.setUint8(entry, image.size >= 256 ? 0 : image.size);
    view.setUint8(entry + 1, image.size >= 256 ? 0 : image.size);
    view.setUint8(entry + 2, 0);
    view.setUint8(entry + 3, 0);
    view.setUint16(entry + 4, 1, true);
    view.setUint16(entry + 6, 32, true);
    view.setUint32(entry + 8, image.png.length, true);
    view.setUint32(entry + 12, offset, true);
    out.set(image.png, offset);
    offset += image.png.length;
  });
  return out;
}

async function main(): Promise<void> {
  const svg = readFileSync(SOURCE);
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const pngs = new Map<number, Uint8Array>();
  try {
    const page = await browser.newPage({ deviceScaleFactor: 1 });
    const source = `data:image/svg+xml;base64,${svg.toString("base64")}`;
    for (const size of SIZES) {
      await page.setViewportSize({ width: size, height: size });
      await page.setContent(`<!doctype html><html><body style="margin:0;background:transparent"><img src="${source}" width="${size}" height="${size}" style="display:block"></body></html>`);
      await page.waitForFunction("document.images[0]?.complete === true");
      pngs.set(size, new Uint8Array(await page.screenshot({ type: "png", omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } })));
    }
  } finally {
    await browser.close();
  }
  mkdirSync(ICON_DIR, { recursive: true });
  mkdirSync(EXTENSION_ICON_DIR, { recursive: true });
  for (const [size, png] of pngs) writeFileSync(join(ICON_DIR, `icon-${size}.png`), png);
  for (const size of EXTENSION_SIZES) writeFileSync(join(EXTENSION_ICON_DIR, `icon-${size}.png`), pngs.get(size)!);
  writeFileSync(FAVICON, icoOf(FAVICON_SIZES.map((size) => ({ size, png: pngs.get(size)! }))));
  writeFileSync(SOURCE_HASH, `${sourceHash(svg)}  icon.svg\n`);
  console.log(`wrote ${pngs.size} PNG sizes, favicon.ico and the extension's icons from ${SOURCE}`);
}

if (import.meta.main) await main();
