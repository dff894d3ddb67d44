/** The API guide names every script the pages load: each `/assets/*.js` route the app serves. */
import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeEnv } from "../support/helpers";

describe("docs/api.md and the pages' scripts", () => {
  it("names each script route the app serves", () => {
    const scripts = makeEnv().app.routes.map((route) => route.path).filter((path) => /^\/assets\/.+\.js$/.test(path));
    expect(scripts).toContain("/assets/shortcuts.js");
    const guide = readFileSync(join(import.meta.dir, "..", "..", "docs", "api.md"), "utf8");
    for (const script of scripts) expect(guide).toContain(`\`${script}\``);
  });
});
