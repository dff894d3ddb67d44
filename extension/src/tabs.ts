/**
 * "Save all tabs in this window": each tab showing a web page not yet among the user's links is
 * saved, one request at a time, into one collection. A pure function of the client and the tabs
 * (no browser API), so the popup only gathers them and shows the report.
 */
import type { CollectionJson } from "../../src/contract/collections";
import type { LinkJson } from "../../src/contract/links";
import { ApiError, type Client } from "./api";
import { normalizeUrl } from "./normalize";
import type { Tab } from "./webext";

/** The longest name the server takes, in characters. */
const NAME_LENGTH = 254;

/** linkName is the name a page is saved under: its title, else its address, cut to what the server takes. */
export function linkName(title: string | undefined, url: string): string {
  const text = title?.trim() || url;
  return Array.from(text).slice(0, NAME_LENGTH).join("");
}

/** A tab as the report lists it. */
export interface TabEntry {
  title: string;
  url: string;
}

/** A tab the server refused, with its reason. */
export interface RefusedTab extends TabEntry {
  reason: string;
}

export interface SaveAllReport {
  saved: LinkJson[];
  /** Web pages already among the links (by normalizeUrl), or open twice in the window: not saved again. */
  alreadySaved: TabEntry[];
  /** Tabs whose address is not http or https (the browser's own pages, files, extension pages). */
  notWeb: TabEntry[];
  /** Tabs the server refused one by one (the others were still tried). */
  refused: RefusedTab[];
  /** Tabs left untried because the server stopped the run. */
  notTried: TabEntry[];
  /** Why the run stopped early: a rate limit, a revoked token, an unreachable server; null when every tab was tried. */
  stoppedBy: ApiError | null;
}

export interface SaveAllInput {
  client: Pick<Client, "createLink">;
  tabs: readonly Tab[];
  /** The user's collections with their links, as `GET /api/v1/collections` lists them: what is already saved. */
  collections: readonly CollectionJson[];
  /** Where the new links go. */
  collectionId: number;
}

function isWebPage(url: string): boolean {
  const parsed = URL.parse(url);
  return parsed !== null && (parsed.protocol === "http:" || parsed.protocol === "https:");
}

/**
 * saveAllTabs saves the web pages among `tabs` that are not saved yet into collection
 * `collectionId`, in the tabs' order, one `POST /api/v1/links` at a time. A page already among
 * the links, or open in an earlier tab, is skipped, compared by normalizeUrl like the popup's
 * "Already saved". A refusal of one link (a field the server rejects) is noted and the next
 * tab tried; a rate limit, a revoked token or an unreachable server stops the run, and what is
 * left is reported as not tried.
 */
export async function saveAllTabs({ client, tabs, collections, collectionId }: SaveAllInput): Promise<SaveAllReport> {
  const known = new Set(collections.flatMap((collection) => collection.links.map((link) => normalizeUrl(link.url))));
  const report: SaveAllReport = { saved: [], alreadySaved: [], notWeb: [], refused: [], notTried: [], stoppedBy: null };
  for (const tab of tabs) {
    const entry: TabEntry = { title: tab.title ?? "", url: tab.url ?? "" };
    if (!isWebPage(entry.url)) {
      report.notWeb.push(entry);
      continue;
    }
    const key = normalizeUrl(entry.url);
    if (known.has(key)) {
      report.alreadySaved.push(entry);
      continue;
    }
    if (report.stoppedBy !== null) {
      report.notTried.push(entry);
      continue;
    }
    try {
      report.saved.push(await client.createLink({ name: linkName(entry.title, entry.url), url: entry.url, description: "", favorite: false, collectionIds: [collectionId] }));
      known.add(key);
    } catch (error) {
      if (error instanceof ApiError && error.kind === "refused") report.refused.push({ ...entry, reason: error.message });
      else {
        report.stoppedBy = error instanceof ApiError ? error : new ApiError("unreachable", String(error));
        report.notTried.push(entry);
      }
    }
  }
  return report;
}

/**
 * summarize is the report in one sentence or two: "Saved 7, already saved 3 (skipped), not web
 * pages 2.", what the server refused, and, when the run stopped, why and how many tabs are left.
 */
export function summarize(report: SaveAllReport): string {
  const counts = [`Saved ${report.saved.length}`, `already saved ${report.alreadySaved.length} (skipped)`, `not web pages ${report.notWeb.length}`];
  if (report.refused.length > 0) counts.push(`refused ${report.refused.length}`);
  const sentences = [`${counts.join(", ")}.`];
  if (report.stoppedBy !== null) {
    const left = report.notTried.length;
    sentences.push(`${report.stoppedBy.message} ${left} ${left === 1 ? "tab was" : "tabs were"} not saved.`);
  }
  return sentences.join(" ");
}
