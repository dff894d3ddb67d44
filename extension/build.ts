/**
 * Builds the browser extension with Bun's bundler: `extension/dist/chromium/` and
 * `extension/dist/firefox/` (the same scripts and pages; the manifests differ where the two
 * browsers do) and a zip of each beside them. `bun extension/build.ts [outdir]`.
 */
import { zipSync, type Zippable } from "fflate";
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

export type Target = "chromium" | "firefox";

const HERE = import.meta.dir;
/** Firefox needs an id of its own to keep storage and permissions across restarts. */
export const GECKO_ID = "linkshelf@linkshelf.local";
/** Fixed file times keep the zips byte-for-byte reproducible. */
const ZIP_TIME = new Date("2026-01-01T00:00:00Z");

/** The toolbar and extension-page icons in static/icons/, by size in pixels. */
export const EXTENSION_ICONS = Object.fromEntries([16, 32, 48, 128].map((size) => [String(size), `icons/icon-${size}.png`]));

/** manifest is the Manifest V3 file for one browser. */
export function manifest(target: Target, version: string): Record<string, unknown> {
  const common = {
    manifest_version: 3,
    name: "linkshelf",
    version,
    description: "Save pages to your linkshelf server, pin your most-clicked favorites to the bookmarks bar, and keep a bookmark folder in sync with a collection.",
    // scripting: reading the text of the tab being saved (capture.js), where activeTab lets it.
    // tabs: the addresses and titles of the window's tabs, for "Save all tabs in this window".
    permissions: ["bookmarks", "storage", "alarms", "contextMenus", "identity", "activeTab", "scripting", "tabs"],
    // Only the server's own host is ever asked for, at sign-in (see README).
    optional_host_permissions: ["http://*/*", "https://*/*"],
    // Drawn from assets/icon.svg by `npm run icons`, like the server's icons.
    icons: EXTENSION_ICONS,
    action: { default_title: "Save to linkshelf", default_popup: "popup.html", default_icon: EXTENSION_ICONS },
    options_ui: { page: "options.html", open_in_tab: true },
    omnibox: { keyword: "ls" },
  };
  if (target === "chromium") return { ...common, background: { service_worker: "background.js" } };
  return {
    ...common,
    background: { scripts: ["background.js"] },
    // 128: the first Firefox with optional_host_permissions in Manifest V3.
    browser_specific_settings: { gecko: { id: GECKO_ID, strict_min_version: "128.0" } },
  };
}

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** buildExtension writes both packages and their zips into `outdir`, returning the zips' paths. */
export async function buildExtension(outdir: string): Promise<string[]> {
  const { version } = JSON.parse(readFileSync(join(HERE, "..", "package.json"), "utf8")) as { version: string };
  rmSync(outdir, { recursive: true, force: true });
  const scripts = join(outdir, ".scripts");
  const result = await Bun.build({
    entrypoints: ["background", "capture", "options", "popup"].map((name) => join(HERE, "src", `${name}.ts`)),
    outdir: scripts,
    target: "browser",
    format: "iife",
    // Readable output: store reviewers read what they install.
    minify: false,
    sourcemap: "none",
  });
  if (!result.success) throw new AggregateError(result.logs, "the extension did not bundle");

  const zips: string[] = [];
  for (const target of ["chromium", "firefox"] as const) {
    const folder = join(outdir, target);
    mkdirSync(folder, { recursive: true });
    cpSync(join(HERE, "static"), folder, { recursive: true });
    cpSync(scripts, folder, { recursive: true });
    writeFileSync(join(folder, "manifest.json"), `${JSON.stringify(manifest(target, version), null, 2)}\n`);
    const entries: Zippable = {};
    for (const file of filesUnder(folder)) entries[relative(folder, file)] = [new Uint8Array(readFileSync(file)), { mtime: ZIP_TIME }];
    const zip = join(outdir, `linkshelf-${target}-${version}.zip`);
    writeFileSync(zip, zipSync(entries, { level: 9 }));
    zips.push(zip);
  }
  rmSync(scripts, { recursive: true, force: true });
  return zips;
}

if (import.meta.main) {
  const zips = await buildExtension(process.argv[2] ?? join(HERE, "dist"));
  console.log(`built ${zips.join(", ")}`);
}
