/**
 * Bun macro: runs at bundle time (and when Bun transpiles from source), so the icons drawn
 * by `npm run icons` from assets/icon.svg are inlined into the executable as base64 text.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const ASSETS = join(import.meta.dir, "..", "..", "assets");

/** The files served, by name under assets/. */
export const ICON_FILES = ["icon.svg", "favicon.ico", "icons/icon-180.png", "icons/icon-192.png", "icons/icon-512.png"] as const;

/** readIcons returns each served icon's bytes as base64, by its name under assets/. */
export function readIcons(): Record<string, string> {
  return Object.fromEntries(ICON_FILES.map((name) => [name, readFileSync(join(ASSETS, name)).toString("base64")]));
}
