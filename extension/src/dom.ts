/** byId returns a page element the page's HTML is known to have; a missing one is a packaging bug. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing from the page`);
  return element as T;
}

export type Tone = "info" | "ok" | "warning" | "error";

/** say shows a sentence in `element` (empty hides it), coloured by its tone. */
export function say(element: HTMLElement, text: string, tone: Tone = "info"): void {
  element.textContent = text;
  element.className = tone === "info" ? "" : tone;
  element.hidden = text === "";
}
