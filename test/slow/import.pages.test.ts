/**
 * The slow tier's part of test/app/import.pages.test.ts: the import page refusing a file of more
 * than the 100,000 bookmarks one file may hold. Run by `npm run test:e2e` and `npm run test:all`,
 * not by `npm test`.
 */
import { describe, expect, it } from "bun:test";
import { snapshot } from "../support/helpers";
import { bigFile, texts, twoUsers, upload } from "../support/import.fixtures";

describe("limits on what one file holds", () => {
  it("refuses a file of more than 100,000 bookmarks, storing nothing", async () => {
    const { env, aliceCookie } = await twoUsers();
    const before = snapshot(env);
    const refused = await upload(env, bigFile(100_001), aliceCookie);
    expect(refused.status).toBe(422);
    expect(texts(refused.text, "#file-error")).toEqual(["The file holds more than 100,000 bookmarks, the most linkshelf imports from one file. Split it into smaller files. Nothing was stored."]);
    expect(snapshot(env)).toBe(before);
  }, 30_000);
});
