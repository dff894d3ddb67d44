import { describe, expect, it } from "bun:test";
import { createOmnibox, describeHit, markMatches, SIGN_IN_CONTENT, type Flavor } from "../../extension/src/omnibox";
import type { Suggestion } from "../../extension/src/webext";
import { APP_ORIGIN, appFetch, FakeStorage, FakeTabs } from "../support/extension.fakes";
import { createLink, createUser, makeEnv, type TestEnv, type TestUser } from "../support/helpers";

interface Setup {
  env: TestEnv;
  alice: TestUser;
  storage: FakeStorage;
  tabs: FakeTabs;
  seen: Request[];
  optionsOpened: number[];
  omnibox: ReturnType<typeof createOmnibox>;
}

/** setup is a signed-in extension (or a signed-out one) on the real app, with the address bar's handlers. */
async function setup({ signedIn = true, flavor = "chromium" as Flavor, env = makeEnv() } = {}): Promise<Setup> {
  const alice = await createUser(env);
  const storage = new FakeStorage();
  if (signedIn) await storage.set({ server: APP_ORIGIN, token: alice.token });
  const tabs = new FakeTabs();
  const seen: Request[] = [];
  const optionsOpened: number[] = [];
  const omnibox = createOmnibox({
    storage, tabs, flavor, fetch: appFetch(env, seen), debounceMs: 5,
    openOptionsPage: async () => void optionsOpened.push(1),
  });
  return { env, alice, storage, tabs, seen, optionsOpened, omnibox };
}

/** suggestionsFor types `text` and collects every call to suggest. */
async function suggestionsFor(omnibox: Setup["omnibox"], text: string): Promise<Suggestion[][]> {
  const calls: Suggestion[][] = [];
  await omnibox.inputChanged(text, (suggestions) => void calls.push(suggestions));
  return calls;
}

describe("the ls keyword's suggestions", () => {
  it("offers the server's hits, each opening /l/<id>, with the matched words marked and the rest escaped for Chromium", async () => {
    const { env, alice, omnibox, seen } = await setup();
    const tide = await createLink(env, alice, { name: "Tide <pools> & rocks", url: "https://coastal.example/tide", description: "Where the tide goes out" });
    await createLink(env, alice, { name: "Unrelated", url: "https://other.example/" });
    const [suggestions, ...more] = await suggestionsFor(omnibox, "  tide ");
    expect(more).toEqual([]);
    expect(suggestions).toEqual([{ content: `${APP_ORIGIN}/l/${tide.id}`, description: expect.stringContaining("Tide &#60;pools&#62; &#38; rocks <dim>—</dim> ") }]);
    expect(suggestions![0]!.description).toContain("<match>");
    expect(new URL(seen[0]!.url).search).toBe("?q=tide&limit=6");
  });

  it("gives Firefox plain text on one line", async () => {
    const { env, alice, omnibox } = await setup({ flavor: "firefox" });
    await createLink(env, alice, { name: "Tide <pools>", url: "https://coastal.example/tide", description: "Where the\ntide   goes out" });
    const [[suggestion]] = (await suggestionsFor(omnibox, "tide")) as [[Suggestion]];
    expect(suggestion.description).toStartWith("Tide <pools> — ");
    expect(suggestion.description).not.toContain("\n");
    expect(suggestion.description).not.toContain("<match>");
  });

  it("answers only the latest input: an earlier one typed meanwhile sends no search and suggests nothing", async () => {
    const { env, alice, omnibox, seen } = await setup();
    await createLink(env, alice, { name: "Tide pools", url: "https://coastal.example/tide" });
    const calls: string[][] = [];
    const record = (suggestions: Suggestion[]) => void calls.push(suggestions.map((suggestion) => suggestion.content));
    await Promise.all([omnibox.inputChanged("ti", record), omnibox.inputChanged("tid", record), omnibox.inputChanged("tide", record)]);
    expect(calls.length).toBe(1);
    expect(calls[0]!.length).toBe(1);
    expect(seen.map((request) => new URL(request.url).searchParams.get("q"))).toEqual(["tide"]);
  });

  it("suggests nothing, quietly, for a query the server refuses, and nothing without a request for blank input", async () => {
    const { env, alice, omnibox, seen } = await setup();
    await createLink(env, alice, { name: "Tide pools", url: "https://coastal.example/tide" });
    expect(await suggestionsFor(omnibox, '"tide')).toEqual([[]]);
    expect(seen.length).toBe(1);
    expect(await suggestionsFor(omnibox, "   ")).toEqual([[]]);
    expect(seen.length).toBe(1);
  });

  it("offers one suggestion to sign in when signed out, and signs out when the token was revoked", async () => {
    const signedOut = await setup({ signedIn: false });
    expect(await suggestionsFor(signedOut.omnibox, "tide")).toEqual([[{ content: SIGN_IN_CONTENT, description: "Sign in to linkshelf in the extension's options page" }]]);
    expect(signedOut.seen).toEqual([]);

    const revoked = await setup();
    revoked.env.db.$client.run("DELETE FROM api_tokens");
    expect((await suggestionsFor(revoked.omnibox, "tide"))[0]!.map((suggestion) => suggestion.content)).toEqual([SIGN_IN_CONTENT]);
    expect(revoked.storage.data.has("token")).toBe(false);
    expect(revoked.storage.data.get("signedOutReason")).toContain("Sign in again");
  });
});

describe("the ls keyword's Enter", () => {
  it("opens a chosen link through /l/<id> in the current tab or a new one in front or behind, as the disposition says", async () => {
    const { env, alice, omnibox, tabs } = await setup();
    const tide = await createLink(env, alice, { name: "Tide pools", url: "https://coastal.example/tide" });
    const address = `${APP_ORIGIN}/l/${tide.id}`;
    await omnibox.inputEntered(address, "currentTab");
    await omnibox.inputEntered(address, "newForegroundTab");
    await omnibox.inputEntered(address, "newBackgroundTab");
    expect(tabs.opened).toEqual([
      { url: address, in: "current tab" },
      { url: address, active: true, in: "new tab" },
      { url: address, active: false, in: "new tab" },
    ]);
  });

  it("opens the server's search page for text that is no suggestion, and the options page when signed out", async () => {
    const { omnibox, tabs } = await setup();
    await omnibox.inputEntered(' tide "rock pool" ', "currentTab");
    await omnibox.inputEntered(`${APP_ORIGIN}/l/12x`, "currentTab");
    expect(tabs.opened.map((tab) => tab.url)).toEqual([`${APP_ORIGIN}/search?q=tide%20%22rock%20pool%22`, `${APP_ORIGIN}/search?q=${encodeURIComponent(`${APP_ORIGIN}/l/12x`)}`]);

    const signedOut = await setup({ signedIn: false });
    await signedOut.omnibox.inputEntered(SIGN_IN_CONTENT, "currentTab");
    await signedOut.omnibox.inputEntered("tide", "newForegroundTab");
    expect(signedOut.optionsOpened.length).toBe(2);
    expect(signedOut.tabs.opened).toEqual([]);
  });
});

describe("describeHit and markMatches", () => {
  it("marks each valid range and ignores ranges out of order or out of bounds", () => {
    expect(markMatches("a<b & c", [[0, 1], [4, 5], [3, 9], [2, 1], [6, 7]])).toBe("<match>a</match>&#60;b <match>&#38;</match> <match>c</match>");
    const hit = {
      link: { id: 1, name: "N", description: "", url: "https://x.example/", favorite: false, toRead: false, archived: false, copy: null, clicks: 0, lastClickedAt: null, collectionIds: [], authorId: 1, createdAt: "", updatedAt: "" },
      score: 1,
      snippet: { text: "one\ntwo  three", matches: [[4, 7]] as [number, number][] },
    };
    expect(describeHit(hit, "chromium")).toBe("N <dim>—</dim> one <match>two</match>  three");
    expect(describeHit(hit, "firefox")).toBe("N — one two three");
  });
});
