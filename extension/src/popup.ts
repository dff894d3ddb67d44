/**
 * The popup (also opened as a small window by the context menu, with `?url=&title=&tabId=&windowId=`,
 * or `kind=link` and no tab for a link): saves the page into collections, or edits the link when
 * the page is already saved, then sends the tab's readable text to the server; saves all tabs
 * of the window into one collection; and lists the pinned favorites with icons from the
 * server's favicon proxy.
 */
import type { CollectionJson } from "../../src/contract/collections";
import type { LinkJson } from "../../src/contract/links";
import { ApiError, createClient, type Client } from "./api";
import { captureTab, keepCopy } from "./content";
import { byId, say } from "./dom";
import { findSaved, sameUrl, type SavedMatch } from "./normalize";
import { forgetToken, loadState } from "./state";
import { linkName, saveAllTabs, summarize, type SaveAllReport, type TabEntry } from "./tabs";
import { FILTER_FROM, shownBy, treeLabel, treeRows } from "./tree";
import { showSync } from "./sync-view";
import { webext } from "./webext";

const ext = webext();
const form = byId<HTMLFormElement>("save");
const nameInput = byId<HTMLInputElement>("name");
const urlInput = byId<HTMLInputElement>("url");
const descriptionInput = byId<HTMLTextAreaElement>("description");
const favoriteInput = byId<HTMLInputElement>("favorite");
const submit = byId<HTMLButtonElement>("submit");
const saveNew = byId<HTMLButtonElement>("save-new");
const toReadInput = byId<HTMLInputElement>("to-read");
const keepCopyButton = byId<HTMLButtonElement>("keep-copy");
const saveToRead = byId<HTMLButtonElement>("save-to-read");
const notice = byId("notice");
const saveAll = byId<HTMLButtonElement>("save-all");
const saveAllCollection = byId<HTMLSelectElement>("save-all-collection");
let collections: CollectionJson[] = [];

interface CurrentPage {
  url: string;
  title: string;
  /** The tab showing the page, whose text is read after saving; none for a page given only by address. */
  tabId?: number;
  /** A link on a page (the context menu's "Save link"), not the page itself. */
  isLink: boolean;
}

const query = new URLSearchParams(location.search);

/** idParam is the query's id `name`, when it holds one. */
function idParam(name: string): { [key: string]: number } {
  const id = Number(query.get(name) ?? Number.NaN);
  return Number.isInteger(id) ? { [name]: id } : {};
}

/** The page to save: the context menu's, else the active tab's. */
async function currentPage(): Promise<CurrentPage> {
  const url = query.get("url");
  if (url) return { url, title: query.get("title") ?? url, isLink: query.get("kind") === "link", ...idParam("tabId") };
  const [tab] = await ext.tabs.query({ active: true, currentWindow: true });
  return { url: tab?.url ?? "", title: tab?.title ?? "", isLink: false, ...(tab?.id === undefined ? {} : { tabId: tab.id }) };
}

/**
 * windowTabs lists the tabs of "this window": the window of the tab the context menu was opened
 * on (its popup is a window of its own), else the window the toolbar popup belongs to.
 */
function windowTabs() {
  const { windowId } = idParam("windowId");
  return ext.tabs.query(windowId === undefined ? { currentWindow: true } : { windowId });
}

function showSignedOut(reason: string | null): void {
  form.hidden = true;
  byId("favorites-section").hidden = true;
  byId("save-all-section").hidden = true;
  byId("signed-out").hidden = false;
  say(notice, reason ?? "", "error");
}

/** holdFor disables `button` for a rate limit's `Retry-After`, then runs `after`. */
function holdFor(button: HTMLButtonElement, error: ApiError, after: () => void = () => {}): void {
  button.disabled = true;
  setTimeout(() => {
    button.disabled = false;
    after();
  }, error.retryAfterSeconds * 1000);
}

/** showError says what went wrong; a revoked token signs out, a rate limit holds the Save button until `Retry-After`. */
async function showError(error: unknown): Promise<void> {
  if (!(error instanceof ApiError)) return say(notice, String(error), "error");
  if (error.kind === "unauthorized") {
    await forgetToken(ext.storage.local, error.message);
    return showSignedOut(error.message);
  }
  say(notice, error.message, "error");
  if (error.kind === "rate-limited") holdFor(submit, error, () => say(notice, ""));
}

/** savedWhere names the collections holding an address that is already saved. */
function savedWhere(match: SavedMatch): string {
  return `Already saved, in ${match.collections.map((collection) => `${collection.icon} ${collection.name}`).join(", ")}.`;
}

/** warnIfSaved says where the typed URL already is, compared by normalizeUrl (saving again is allowed: duplicates are fine). */
function warnIfSaved(): void {
  const match = findSaved(collections, urlInput.value);
  say(byId("duplicate"), match === null ? "" : savedWhere(match), "warning");
}

/** The link the form edits; null when it saves a new one. */
let editing: LinkJson | null = null;
/** The page's link on the server: the one the form edits, or the one it just saved; null before. */
let current: LinkJson | null = null;

/** fill puts a link's fields into the form and ticks its collections (a new link: the default ones). */
function fill(fields: { name: string; url: string; description: string; favorite: boolean; toRead: boolean; collectionIds: number[] | null }): void {
  nameInput.value = fields.name;
  urlInput.value = fields.url;
  descriptionInput.value = fields.description;
  favoriteInput.checked = fields.favorite;
  toReadInput.checked = fields.toRead;
  for (const box of byId("collections").querySelectorAll<HTMLInputElement>("input[type=checkbox]")) {
    const id = Number(box.value);
    box.checked = fields.collectionIds === null ? collections.some((collection) => collection.id === id && collection.isDefault) : fields.collectionIds.includes(id);
  }
}

/** newLink is the form for saving `page` as a new link. */
function newLink(page: CurrentPage): void {
  editing = null;
  fill({ name: linkName(page.title, page.url), url: page.url, description: "", favorite: false, toRead: false, collectionIds: null });
  byId("heading").textContent = page.isLink ? "Save link to linkshelf" : "Save to linkshelf";
  submit.textContent = "Save";
  saveNew.hidden = true;
  warnIfSaved();
}

/** editLink is the form for editing the saved link `match.link` instead of saving a duplicate. */
function editLink(match: SavedMatch): void {
  editing = match.link;
  current = match.link;
  fill({ ...match.link, collectionIds: match.link.collectionIds });
  byId("heading").textContent = "Edit in linkshelf";
  submit.textContent = "Update";
  saveNew.hidden = false;
  say(byId("duplicate"), `${savedWhere(match)} Update it here, or save it again as a new link.`, "warning");
}

/**
 * filterBy shows the filter box `id` once there are more than FILTER_FROM collections: what is
 * typed hides the items (each named by its collection, in order) whose name does not hold it.
 */
function filterBy(id: string, items: readonly HTMLElement[]): void {
  const input = byId<HTMLInputElement>(id);
  input.hidden = collections.length <= FILTER_FROM;
  // Enter filters; it never saves the form around the box.
  input.onkeydown = (event) => void (event.key === "Enter" && event.preventDefault());
  input.oninput = () => items.forEach((item, at) => void (item.hidden = !shownBy(collections[at]!.name, input.value)));
}

/** renderCollections ticks collections as a tree, each indented by its depth, with a filter box. */
function renderCollections(): void {
  const fieldset = byId("collections");
  const labels = treeRows(collections).map(({ collection, depth }) => {
    const label = document.createElement("label");
    label.className = "check";
    label.style.paddingLeft = `${(depth - 1) * 1.1}rem`;
    const box = document.createElement("input");
    box.type = "checkbox";
    box.value = String(collection.id);
    box.checked = collection.isDefault;
    label.append(box, ` ${collection.icon} ${collection.name}`);
    return label;
  });
  fieldset.replaceChildren(fieldset.querySelector("legend")!, ...labels);
  filterBy("collections-filter", labels);
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

/**
 * capture sends the tab's readable text as `link`'s content when the tab shows that very address
 * (the context menu's link is another page). A page the browser does not let extensions read is
 * saved without it, silently.
 */
async function capture(client: Client, page: CurrentPage, link: LinkJson): Promise<void> {
  if (page.tabId === undefined) return;
  const tab = await ext.tabs.get(page.tabId).catch(() => undefined);
  if (tab?.url === undefined || !sameUrl(tab.url, link.url)) return;
  try {
    if ((await captureTab({ scripting: ext.scripting, client, tabId: page.tabId, linkId: link.id })) === "saved") {
      say(byId("captured"), "The page's text is saved for search.");
    }
  } catch (error) {
    if (error instanceof ApiError && error.kind === "unauthorized") return showError(error);
    say(notice, `The link is saved, but not the page's text: ${error instanceof Error ? error.message : String(error)}`, "error");
  }
}

/**
 * keepPageCopy keeps a copy of the tab's page as `link`'s page copy, when the tab shows that very
 * page, and says how it went.
 */
async function keepPageCopy(client: Client, page: CurrentPage, link: LinkJson): Promise<void> {
  const out = byId("copy-result");
  const tab = page.tabId === undefined ? undefined : await ext.tabs.get(page.tabId).catch(() => undefined);
  if (page.tabId === undefined || tab?.url === undefined || !sameUrl(tab.url, link.url)) {
    return say(out, "Open the page in a tab to keep a copy of it.", "error");
  }
  keepCopyButton.disabled = true;
  say(out, "Keeping a copy…");
  try {
    const kept = await keepCopy({ scripting: ext.scripting, client, tabId: page.tabId, linkId: link.id });
    if (kept === "unreadable") say(out, "The browser does not let extensions copy this page: no copy was kept.", "error");
    else if (kept === "too-large") say(out, "This page is larger than 20 MiB with its images: no copy was kept.", "error");
    else say(out, `Copy kept, ${new Date(kept.savedAt).toLocaleString()}.`, "ok");
  } catch (error) {
    if (error instanceof ApiError && error.kind === "unauthorized") return showError(error);
    say(out, `No copy was kept: ${error instanceof Error ? error.message : String(error)}`, "error");
  } finally {
    keepCopyButton.disabled = false;
  }
}

async function save(client: Client, page: CurrentPage): Promise<void> {
  const collectionIds = [...byId("collections").querySelectorAll<HTMLInputElement>("input:checked")].map((box) => Number(box.value));
  const name = nameInput.value.trim();
  const url = urlInput.value.trim();
  const description = descriptionInput.value.trim();
  const favorite = favoriteInput.checked;
  const toRead = toReadInput.checked;
  submit.disabled = true;
  saveNew.disabled = true;
  saveToRead.disabled = true;
  try {
    const link = editing === null
      ? await client.createLink({ name, url, description, favorite, toRead, collectionIds })
      : await client.updateLink(editing.id, { name, url, description, favorite, toRead, collectionIds });
    const where = collections.filter((collection) => link.collectionIds.includes(collection.id)).map((collection) => collection.name);
    say(byId("result"), `${editing === null ? "Saved to" : "Updated, in"} ${where.join(", ") || "the Inbox"}${link.toRead ? ", to read" : ""}.`, "ok");
    submit.textContent = editing === null ? "Saved" : "Updated";
    saveNew.hidden = true;
    current = link;
    // The folder on the bookmarks bar follows at once when the link is a favorite.
    void ext.runtime.sendMessage({ type: "refresh" });
    await capture(client, page, link);
    if ((await loadState(ext.storage.local)).keepCopies) await keepPageCopy(client, page, link);
  } catch (error) {
    submit.disabled = false;
    saveNew.disabled = false;
    saveToRead.disabled = false;
    await showError(error);
  }
}

/** renderList adds a heading and the tabs under it to the save-all report, when there are any. */
function renderList(heading: string, entries: readonly (TabEntry & { reason?: string })[]): HTMLElement[] {
  if (entries.length === 0) return [];
  const title = document.createElement("h3");
  title.textContent = heading;
  const list = document.createElement("ul");
  for (const entry of entries) {
    const item = document.createElement("li");
    item.textContent = `${entry.title || entry.url}${entry.title && entry.url ? ` — ${entry.url}` : ""}${entry.reason ? `: ${entry.reason}` : ""}`;
    list.append(item);
  }
  return [title, list];
}

/** showReport says what save-all did and lists every tab it did not save. */
function showReport(report: SaveAllReport): void {
  const tone = report.stoppedBy !== null || report.refused.length > 0 ? "error" : "ok";
  say(byId("save-all-result"), summarize(report), tone);
  byId("save-all-lists").replaceChildren(
    ...renderList("Already saved (skipped)", report.alreadySaved),
    ...renderList("Not web pages", report.notWeb),
    ...renderList("Refused by the server", report.refused),
    ...renderList("Not saved", report.notTried),
  );
}

/** runSaveAll saves the window's tabs into the chosen collection and reports; the form then knows the new links. */
async function runSaveAll(client: Client, page: CurrentPage): Promise<void> {
  saveAll.disabled = true;
  say(byId("save-all-result"), "Saving…");
  byId("save-all-lists").replaceChildren();
  let tabs;
  try {
    tabs = await windowTabs();
  } catch (error) {
    // The window was closed meanwhile.
    saveAll.disabled = false;
    return say(byId("save-all-result"), `Cannot list the window's tabs: ${error instanceof Error ? error.message : String(error)}`, "error");
  }
  const report = await saveAllTabs({ client, tabs, collections, collectionId: Number(saveAllCollection.value) });
  showReport(report);
  for (const link of report.saved) {
    for (const collection of collections) if (link.collectionIds.includes(collection.id)) collection.links.unshift(link);
  }
  const match = findSaved(collections, page.url);
  if (editing === null && match !== null) editLink(match);
  const stop = report.stoppedBy;
  if (stop?.kind === "unauthorized") return showError(stop);
  if (stop?.kind === "rate-limited") holdFor(saveAll, stop);
  else saveAll.disabled = false;
}

/** renderSaveAll offers the collections to save all tabs into as a tree, indented, with a filter box, the Inbox chosen. */
function renderSaveAll(): void {
  const options = treeRows(collections).map((row) => {
    const option = document.createElement("option");
    option.value = String(row.collection.id);
    option.textContent = treeLabel(row);
    option.selected = row.collection.isDefault;
    return option;
  });
  saveAllCollection.replaceChildren(...options);
  filterBy("save-all-filter", options);
  byId("save-all-section").hidden = false;
}

/** typing: is the target a field that takes text (where R is a letter, not the shortcut)? */
function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !/^(checkbox|radio|button|submit|reset)$/.test(target.type);
}

async function main(): Promise<void> {
  const state = await loadState(ext.storage.local);
  if (state.server === null || state.token === null) return showSignedOut(state.signedOutReason);
  const client = createClient({ origin: state.server, token: state.token });
  const page = await currentPage();
  newLink(page);
  form.hidden = false;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void save(client, page);
  });
  saveNew.addEventListener("click", () => {
    current = null;
    newLink(page);
  });
  // Keep a copy: of the saved link's page, saving it first when it is not saved yet.
  keepCopyButton.addEventListener("click", async () => {
    if (current === null) {
      await save(client, page);
      // With "keep a copy of every page I save", saving kept it already.
      if ((await loadState(ext.storage.local)).keepCopies) return;
    }
    if (current !== null) await keepPageCopy(client, page, current);
  });
  // Read later in one key: R (while no text field has the focus), or the button.
  saveToRead.addEventListener("click", () => {
    toReadInput.checked = true;
    form.requestSubmit();
  });
  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || event.key.toLowerCase() !== "r" || typing(event.target)) return;
    if (form.hidden || saveToRead.disabled) return;
    event.preventDefault();
    saveToRead.click();
  });
  saveAll.addEventListener("click", () => void runSaveAll(client, page));
  urlInput.addEventListener("input", () => {
    if (editing === null) warnIfSaved();
  });
  try {
    const [all, favorites] = await Promise.all([client.listCollections(), client.listFavorites()]);
    collections = all;
    renderCollections();
    renderSaveAll();
    // The collections arrive with the defaults ticked; what was typed meanwhile is kept unless the page is already saved.
    const match = findSaved(collections, page.url);
    if (match === null) warnIfSaved();
    else editLink(match);
    renderFavorites(state.server, favorites.slice(0, state.pinCount));
  } catch (error) {
    await showError(error);
  }
}

byId("open-options").addEventListener("click", () => void ext.runtime.openOptionsPage());
// The folder sync's status in one line, and the failsafe's question when it asks one.
void showSync(ext);
ext.storage.onChanged.addListener(() => void showSync(ext));
void main();
