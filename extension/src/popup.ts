/**
 * The popup (also opened as a small window by the context menu, with `?url=&title=`): saves the
 * page into collections and lists the pinned favorites with icons from the server's favicon proxy.
 */
import type { CollectionJson, LinkJson } from "../../src/api/types";
import { ApiError, createClient, type Client } from "./api";
import { byId, say } from "./dom";
import { forgetToken, loadState } from "./state";
import { webext } from "./webext";

const ext = webext();
const form = byId<HTMLFormElement>("save");
const urlInput = byId<HTMLInputElement>("url");
const submit = byId<HTMLButtonElement>("submit");
const notice = byId("notice");
let collections: CollectionJson[] = [];

/** The page to save: the context menu's, else the active tab's. */
async function currentPage(): Promise<{ url: string; title: string }> {
  const query = new URLSearchParams(location.search);
  const url = query.get("url");
  if (url) return { url, title: query.get("title") ?? url };
  const [tab] = await ext.tabs.query({ active: true, currentWindow: true });
  return { url: tab?.url ?? "", title: tab?.title ?? "" };
}

function showSignedOut(reason: string | null): void {
  form.hidden = true;
  byId("favorites-section").hidden = true;
  byId("signed-out").hidden = false;
  say(notice, reason ?? "", "error");
}

/** showError says what went wrong; a revoked token signs out, a rate limit holds the Save button until `Retry-After`. */
async function showError(error: unknown): Promise<void> {
  if (!(error instanceof ApiError)) return say(notice, String(error), "error");
  if (error.kind === "unauthorized") {
    await forgetToken(ext.storage.local, error.message);
    return showSignedOut(error.message);
  }
  say(notice, error.message, "error");
  if (error.kind === "rate-limited") {
    submit.disabled = true;
    setTimeout(() => {
      submit.disabled = false;
      say(notice, "");
    }, error.retryAfterSeconds * 1000);
  }
}

/** warnIfSaved names where the URL already is (saving again is allowed: duplicates are fine). */
function warnIfSaved(): void {
  const url = urlInput.value.trim();
  const holders = collections.filter((collection) => collection.links.some((link) => link.url === url));
  const names = holders.map((collection) => `${collection.icon} ${collection.name}`).join(", ");
  say(byId("duplicate"), holders.length > 0 ? `Already saved, in ${names}.` : "", "warning");
}

function renderCollections(): void {
  const fieldset = byId("collections");
  fieldset.replaceChildren(fieldset.querySelector("legend")!);
  for (const collection of collections) {
    const label = document.createElement("label");
    label.className = "check";
    const box = document.createElement("input");
    box.type = "checkbox";
    box.value = String(collection.id);
    box.checked = collection.isDefault;
    label.append(box, ` ${collection.icon} ${collection.name}`);
    fieldset.append(label);
  }
}

function renderFavorites(origin: string, favorites: readonly LinkJson[]): void {
  const list = byId("favorites");
  list.replaceChildren(
    ...favorites.map((link) => {
      const icon = document.createElement("img");
      icon.src = `${origin}/favicon?url=${encodeURIComponent(link.url)}`;
      icon.alt = "";
      const name = document.createElement("span");
      name.textContent = link.name;
      const clicks = document.createElement("span");
      clicks.className = "clicks";
      clicks.textContent = String(link.clicks);
      const anchor = document.createElement("a");
      anchor.href = `${origin}/l/${link.id}`;
      anchor.target = "_blank";
      anchor.title = link.url;
      anchor.append(icon, name, clicks);
      const item = document.createElement("li");
      item.append(anchor);
      return item;
    }),
  );
  byId("favorites-section").hidden = favorites.length === 0;
}

async function save(client: Client): Promise<void> {
  const checked = [...byId("collections").querySelectorAll<HTMLInputElement>("input:checked")].map((box) => Number(box.value));
  submit.disabled = true;
  try {
    const link = await client.createLink({
      name: byId<HTMLInputElement>("name").value.trim(),
      url: urlInput.value.trim(),
      description: byId<HTMLTextAreaElement>("description").value.trim(),
      favorite: byId<HTMLInputElement>("favorite").checked,
      collectionIds: checked,
    });
    const where = collections.filter((collection) => link.collectionIds.includes(collection.id)).map((collection) => collection.name);
    say(byId("result"), `Saved to ${where.join(", ") || "the Inbox"}.`, "ok");
    submit.textContent = "Saved";
    // The folder on the bookmarks bar follows at once when the new link is a favorite.
    void ext.runtime.sendMessage({ type: "refresh" });
  } catch (error) {
    submit.disabled = false;
    await showError(error);
  }
}

async function main(): Promise<void> {
  const state = await loadState(ext.storage.local);
  if (state.server === null || state.token === null) return showSignedOut(state.signedOutReason);
  const client = createClient({ origin: state.server, token: state.token });
  const page = await currentPage();
  byId<HTMLInputElement>("name").value = (page.title || page.url).slice(0, 254);
  urlInput.value = page.url;
  form.hidden = false;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void save(client);
  });
  urlInput.addEventListener("input", warnIfSaved);
  try {
    const [all, favorites] = await Promise.all([client.listCollections(), client.listFavorites()]);
    collections = all;
    renderCollections();
    warnIfSaved();
    renderFavorites(state.server, favorites.slice(0, state.pinCount));
  } catch (error) {
    await showError(error);
  }
}

byId("open-options").addEventListener("click", () => void ext.runtime.openOptionsPage());
void main();
