import { beforeAll, describe, expect, it } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { unzipSync } from "fflate";
import { buildExtension, EXTENSION_ICONS, GECKO_ID } from "../../extension/build";
import { testDir } from "../support/dirs";
import { pngSize } from "../support/icons";

let out = "";
let zips: string[] = [];

beforeAll(async () => {
  out = testDir("extension-build");
  zips = await buildExtension(out);
});

const manifestOf = (target: string) => JSON.parse(readFileSync(join(out, target, "manifest.json"), "utf8"));

describe("npm run build:extension", () => {
  it("writes a Chromium and a Firefox package, with their zips holding exactly the same files", () => {
    const { version } = JSON.parse(readFileSync(join(import.meta.dir, "..", "..", "package.json"), "utf8"));
    expect(zips).toEqual([join(out, `linkshelf-chromium-${version}.zip`), join(out, `linkshelf-firefox-${version}.zip`)]);
    for (const target of ["chromium", "firefox"]) {
      const files = readdirSync(join(out, target), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => relative(join(out, target), join(entry.parentPath, entry.name)))
        .sort();
      expect(files).toEqual([
        "background.js", "capture.js", "icons/icon-128.png", "icons/icon-16.png", "icons/icon-32.png", "icons/icon-48.png",
        "manifest.json", "options.html", "options.js", "popup.html", "popup.js", "style.css",
      ]);
      const zipped = unzipSync(new Uint8Array(readFileSync(join(out, `linkshelf-${target}-${version}.zip`))));
      expect(Object.keys(zipped).sort()).toEqual(files);
      for (const file of files) expect(Buffer.from(zipped[file]!).equals(readFileSync(join(out, target, file)))).toBe(true);
    }
  });

  it("gives Chromium a service worker and Firefox a background script and an add-on id", () => {
    const chromium = manifestOf("chromium");
    const firefox = manifestOf("firefox");
    expect(chromium.manifest_version).toBe(3);
    expect(chromium.background).toEqual({ service_worker: "background.js" });
    expect(chromium.browser_specific_settings).toBeUndefined();
    expect(firefox.background).toEqual({ scripts: ["background.js"] });
    expect(firefox.browser_specific_settings.gecko.id).toBe(GECKO_ID);
    const { background: _c, ...chromiumRest } = chromium;
    const { background: _f, browser_specific_settings: _s, ...firefoxRest } = firefox;
    expect(firefoxRest).toEqual(chromiumRest);
  });

  it("names the toolbar icons, each a PNG of its size in the package", () => {
    for (const target of ["chromium", "firefox"]) {
      const manifest = manifestOf(target);
      expect(manifest.icons).toEqual(EXTENSION_ICONS);
      expect(manifest.action.default_icon).toEqual(EXTENSION_ICONS);
      for (const [size, file] of Object.entries(EXTENSION_ICONS)) {
        expect({ file, size: pngSize(readFileSync(join(out, target, file))) }).toEqual({ file, size: { width: Number(size), height: Number(size) } });
      }
    }
  });

  it("gives both browsers the address bar's keyword ls, the scripting permission the page capture needs and the tabs permission saving all tabs needs", () => {
    for (const target of ["chromium", "firefox"]) {
      const manifest = manifestOf(target);
      expect(manifest.omnibox).toEqual({ keyword: "ls" });
      expect(manifest.permissions).toEqual(["bookmarks", "storage", "alarms", "contextMenus", "identity", "activeTab", "scripting", "tabs"]);
    }
  });

  it("asks for no host at install: the server's host is requested at sign-in", () => {
    for (const target of ["chromium", "firefox"]) {
      const manifest = manifestOf(target);
      expect(manifest.host_permissions).toBeUndefined();
      expect(manifest.permissions.filter((permission: string) => permission.includes("/") || permission === "<all_urls>")).toEqual([]);
      expect(manifest.optional_host_permissions).toEqual(["http://*/*", "https://*/*"]);
    }
  });

  it("bundles the extension's own modules and the wire contract's plain values (no schema, no TypeBox), and of libraries only Readability, in the capture script", () => {
    // The readable bundle names each module it holds on a comment line of its own, by its path from the repository.
    const modulesOf = (script: string) => [...readFileSync(join(out, "chromium", script), "utf8").matchAll(/^ {2}\/\/ (\S+\.[cm]?[jt]sx?)$/gm)].map((match) => match[1]!);
    const foreign = (script: string) => [...new Set(modulesOf(script).filter((path) => !path.startsWith("extension/src/")))];
    expect([...new Set(["background.js", "options.js", "popup.js"].flatMap(foreign))].sort()).toEqual(["src/contract/batch-targets.ts", "src/contract/content-limits.ts", "src/contract/handoff.ts"]);
    expect(modulesOf("popup.js")).toContain("extension/src/api.ts");
    // node_modules may be reached through a link, so the path is matched from node_modules on.
    expect(foreign("capture.js").map((path) => path.slice(path.indexOf("node_modules/")))).toEqual([
      "node_modules/@mozilla/readability/Readability.js", "node_modules/@mozilla/readability/Readability-readerable.js", "node_modules/@mozilla/readability/index.js",
    ]);
    expect(modulesOf("capture.js")).toEqual(expect.arrayContaining(["extension/src/reader.ts", "extension/src/capture.ts"]));
  });

  it("writes the same zip bytes on every build", async () => {
    const first = zips.map((zip) => readFileSync(zip));
    const second = (await buildExtension(testDir("extension-build"))).map((zip) => readFileSync(zip));
    expect(second.map((bytes, index) => bytes.equals(first[index]!))).toEqual([true, true]);
  });
});
