/**
 * The popup's collection pickers as a tree: the depths from `parentId` of what
 * `GET /api/v1/collections` lists (depth first, in order), the indented labels, and the filter.
 */
import { describe, expect, it } from "bun:test";
import { createClient } from "../../extension/src/api";
import { shownBy, treeLabel, treeRows } from "../../extension/src/tree";
import { APP_ORIGIN, appFetch } from "../support/extension.fakes";
import { createCollection, createUser, makeEnv } from "../support/helpers";

describe("the popup's collection picker", () => {
  it("shows the server's tree in its order, each collection indented by its depth", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const bikes = await createCollection(env, alice, { name: "Bikes", icon: "🚲" });
    const music = await createCollection(env, alice, { name: "Music", icon: "🎵" });
    const home = await createCollection(env, alice, { name: "Home", icon: "🏠", parentId: bikes.id });
    await createCollection(env, alice, { name: "Tools", icon: "🛠️", parentId: home.id });
    await createCollection(env, alice, { name: "Jazz", icon: "🎷", parentId: music.id });
    const client = createClient({ origin: APP_ORIGIN, token: alice.token, fetch: appFetch(env) });
    const rows = treeRows(await client.listCollections());
    expect(rows.map(treeLabel)).toEqual(["📥 Inbox", "🚲 Bikes", "\u00a0\u00a0\u00a0🏠 Home", "\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0🛠️ Tools", "🎵 Music", "\u00a0\u00a0\u00a0🎷 Jazz"]);
    expect(rows.map((row) => row.depth)).toEqual([1, 1, 2, 3, 1, 2]);
  });

  it("filters by a part of the name, in any case", () => {
    expect(shownBy("Road bikes", " BIKE ")).toBe(true);
    expect(shownBy("Road bikes", "")).toBe(true);
    expect(shownBy("Road bikes", "gravel")).toBe(false);
  });
});
