/**
 * Injected into the tab being saved (`scripting.executeScript`, files: capture.js), in the
 * extension's isolated world: it defines the reader the popup then calls in the same world
 * (READ_PAGE_FUNCTION), so the page's own scripts neither see nor replace it.
 */
import { READ_PAGE_FUNCTION } from "./read-page";
import { readPage } from "./reader";

(globalThis as Record<string, unknown>)[READ_PAGE_FUNCTION] = () => readPage(document);
