/**
 * The right-click menu's two items and the popup window each opens: "Save page to linkshelf…"
 * on a page, "Save link to linkshelf…" on a link. A pure function of the click, so the
 * background script only creates the window.
 */
import type { MenuClick, Tab } from "./webext";

export const MENU_PAGE = "linkshelf-save-page";
export const MENU_LINK = "linkshelf-save-link";

/** The items, by id: their titles and the contexts they show in (on a link only the link's). */
export const MENU_ITEMS = [
  { id: MENU_PAGE, title: "Save page to linkshelf…", contexts: ["page"] },
  { id: MENU_LINK, title: "Save link to linkshelf…", contexts: ["link"] },
];

/**
 * menuPopupQuery is the popup's query for a click on one of MENU_ITEMS, or null for another
 * item. For the page: its address and title, and the tab (`tabId`), whose text the popup reads
 * after saving. For a link: the link's address, named by its text (Firefox gives it; Chromium
 * gives a selected link's text as the selection) or else its address, and no tab, so the popup
 * neither edits nor reads the page the link is on. Both carry the tab's window (`windowId`):
 * the popup window is a window of its own, and "Save all tabs in this window" means the tab's.
 */
export function menuPopupQuery(info: MenuClick, tab: Tab | undefined): URLSearchParams | null {
  let query: URLSearchParams;
  if (info.menuItemId === MENU_LINK && info.linkUrl) {
    const text = (info.linkText ?? info.selectionText ?? "").trim();
    query = new URLSearchParams({ url: info.linkUrl, title: text || info.linkUrl, kind: "link" });
  } else if (info.menuItemId === MENU_PAGE) {
    const url = info.pageUrl ?? tab?.url ?? "";
    query = new URLSearchParams({ url, title: tab?.title ?? url });
    if (tab?.id !== undefined) query.set("tabId", String(tab.id));
  } else return null;
  if (tab?.windowId !== undefined) query.set("windowId", String(tab.windowId));
  return query;
}
