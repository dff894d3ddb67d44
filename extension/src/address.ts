export type AddressCheck = { ok: true; origin: string } | { ok: false; reason: string };

/**
 * parseServerAddress turns what the user typed (`192.168.1.20:3000`, `http://nas.local:3000/`)
 * into the server's origin. A missing scheme means `http://`, the norm on a LAN. Only an origin
 * is accepted: linkshelf serves its routes from the root, so a path would silently be ignored.
 */
export function parseServerAddress(input: string): AddressCheck {
  const text = input.trim();
  if (text === "") return { ok: false, reason: "Enter the server's address, like http://192.168.1.20:3000." };
  const url = URL.parse(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
  if (url === null || url.hostname === "") return { ok: false, reason: `"${text}" is not an address.` };
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, reason: "The address must start with http:// or https://." };
  if (url.username !== "" || url.password !== "") return { ok: false, reason: "Leave the user name and password out of the address." };
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "") {
    return { ok: false, reason: `Enter only the server's address, like ${url.origin}.` };
  }
  return { ok: true, origin: url.origin };
}

/**
 * hostPermission is the match pattern asked for: the server's host only. Firefox refuses a
 * port in match patterns, and in Chromium a pattern without one matches every port, so the
 * pattern names the host alone in both.
 */
export function hostPermission(origin: string): string {
  const url = new URL(origin);
  return `${url.protocol}//${url.hostname}/*`;
}
