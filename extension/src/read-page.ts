/** The global capture.js defines in the tab's isolated world for the extension, and readTab calls. */
export const READ_PAGE_FUNCTION = "linkshelfReadPage";
/** The global capture.js defines for keepCopy: it makes the tab's page into one self-contained HTML file. */
export const KEEP_COPY_FUNCTION = "linkshelfKeepCopy";
