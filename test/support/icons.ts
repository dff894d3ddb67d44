/** Readers of the icon formats the tests check: a PNG's IHDR and an ICO file's directory. */

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** pngSize reads width and height from a PNG's IHDR chunk; throws when the bytes are not a PNG. */
export function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 24 || !PNG_SIGNATURE.every((byte, i) => bytes[i] === byte)) throw new Error("not a PNG");
  if (new TextDecoder().decode(bytes.subarray(12, 16)) !== "IHDR") throw new Error("PNG without IHDR first");
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

export interface IcoImage {
  /** As the directory states it (0 read as 256). */
  width: number;
  height: number;
  bitsPerPixel: number;
  bytes: Uint8Array;
}

/** icoImages reads an ICO file's header and directory and returns each image's bytes; throws on a malformed file. */
export function icoImages(bytes: Uint8Array): IcoImage[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint16(0, true) !== 0 || view.getUint16(2, true) !== 1) throw new Error("not an ICO file");
  const count = view.getUint16(4, true);
  const images: IcoImage[] = [];
  for (let i = 0; i < count; i++) {
    const entry = 6 + 16 * i;
    const size = view.getUint32(entry + 8, true);
    const offset = view.getUint32(entry + 12, true);
    if (offset + size > bytes.length) throw new Error(`image ${i} runs past the end of the file`);
    images.push({
      width: view.getUint8(entry) || 256,
      height: view.getUint8(entry + 1) || 256,
      bitsPerPixel: view.getUint16(entry + 6, true),
      bytes: bytes.subarray(offset, offset + size),
    });
  }
  return images;
}
