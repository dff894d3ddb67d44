/**
 * The bookmark file export: a user's shelf as a Netscape bookmark file (`netscapeLines`), which
 * browsers and linkshelf's own import read back.
 */
import type { Shelf } from "../shelf/shelf";
import type { Membership } from "../shelf/collections";
import { shelfTree, type TreeCollection } from "./linkshelf-json";
import { netscapeLines, TOOLBAR_NAMES, type RenderFolder, type RenderItem } from "./netscape";

/**
 * exportBookmarks writes all of a user's links as a Netscape bookmark file: the Inbox's links
 * outside any folder, in the Inbox's order (where an import, ours or a browser's, takes them
 * back to the Inbox / the import's own folder), then every other collection as a folder, in the
 * tree's order, each with its links and sub-collections interleaved in the collection's order
 * (a link in two collections appears in both). Every date an import reads back is written
 * (ADD_DATE and LAST_MODIFIED of links and collections), so that importing the file into an
 * empty linkshelf and exporting again gives the same bytes. A link to read has linkding's
 * TOREAD="1", an archived one LINKSHELF_ARCHIVED="true" (both read back as the flags).
 */
export function exportBookmarks(shelf: Shelf): string {
  return [...exportBookmarkLines(shelf)].join("");
}

/** exportBookmarkLines is exportBookmarks' file a line at a time, rendered as it is pulled (the shelf is read at once, first). */
export function exportBookmarkLines(shelf: Shelf): Generator<string> {
  const link = ({ name, url, description, createdAt, updatedAt, favorite, toRead, archived }: Membership): RenderItem =>
    ({ kind: "link", name, url, description, addDate: createdAt, lastModified: updatedAt, favorite, toRead, archived });
  const folder = ({ row, items }: TreeCollection): RenderFolder => ({
    kind: "folder", name: row.name, description: row.description, icon: row.icon, addDate: row.createdAt, lastModified: row.updatedAt,
    items: items.map((item) => (item.kind === "link" ? link(item.link) : folder(item.collection))),
  });
  const tree = shelfTree(shelf);
  const top = tree.top.map(folder);
  // The first top-level collection named as a browser names its toolbar goes back to a browser as its toolbar.
  const toolbar = top.find((item) => (TOOLBAR_NAMES as readonly string[]).includes(item.name));
  if (toolbar) toolbar.toolbar = true;
  return netscapeLines([...tree.inbox.map(link), ...top]);
}
