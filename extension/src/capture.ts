/**
 * Injected into the tab being saved (`scripting.executeScript`, files: capture.js), in the
 * extension's isolated world: it defines the reader the popup then calls in the same world
 * (READ_PAGE_FUNCTION) and the copy maker (KEEP_COPY_FUNCTION, src/snapshot.ts), so the page's
 * own scripts neither see nor replace them.
 */
import { KEEP_COPY_FUNCTION, READ_PAGE_FUNCTION } from "./read-page";
import { readPage } from "./reader";
import { pageReaders, snapshotDocument } from "./snapshot";

(globalThis as Record<string, unknown>)[READ_PAGE_FUNCTION] = () => readPage(document);
(globalThis as Record<string, unknown>)[KEEP_COPY_FUNCTION] = () => {
  const { inline, fetchText } = pageReaders(window);
  return snapshotDocument(document, inline, fetchText, new Date());
};
