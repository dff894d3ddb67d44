/** The global capture.js defines in the tab's isolated world for the extension, and readTab calls. */
export const READ_PAGE_FUNCTION = "linkshelfReadPage";
