/** The accent of the pages' light palette: the phone's title bar and the icon's ground. */
export const THEME_COLOR = "#2f5bd3";
const BACKGROUND_COLOR = "#f6f7f9";

/** The web app manifest's path, linked from every page's head. */
export const MANIFEST_PATH = "/manifest.webmanifest";

/**
 * The web app manifest: phones can add linkshelf to the home screen, and list it in the share
 * sheet. Sharing a page opens the add-link form (`GET /links/new`) with its title, text and URL
 * as query parameters; the form fills in the URL (or the first http(s) URL in the text) and name.
 */
export const WEB_APP_MANIFEST = {
  id: "/",
  name: "linkshelf",
  short_name: "linkshelf",
  description: "Your bookmarks, on your own server.",
  start_url: "/",
  scope: "/",
  display: "standalone",
  background_color: BACKGROUND_COLOR,
  theme_color: THEME_COLOR,
  icons: [
    { src: "/icon.svg", sizes: "any", type: "image/svg+xml" },
    { src: "/icons/icon-192.png", sizes: "192x192", type: "image/png" },
    { src: "/icons/icon-512.png", sizes: "512x512", type: "image/png" },
  ],
  share_target: { action: "/links/new", method: "GET", enctype: "application/x-www-form-urlencoded", params: { title: "title", text: "text", url: "url" } },
};
