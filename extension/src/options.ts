/** The options page: the server's address, signing in and out, how many favorites to pin, and whether to keep a copy of every page saved. */
import { checkServer, revokeHeldToken } from "./api";
import { hostPermission, parseServerAddress } from "./address";
import { signIn } from "./auth";
import { byId, say } from "./dom";
import { forgetToken, loadState, MAX_PIN_COUNT, saveSignIn } from "./state";
import { setUpSync } from "./sync-options";
import { stopSync } from "./sync/store";
import { webext } from "./webext";

const ext = webext();
const storage = ext.storage.local;
const serverInput = byId<HTMLInputElement>("server");
const signInButton = byId<HTMLButtonElement>("sign-in");
const message = byId("message");
const pinCount = byId<HTMLInputElement>("pin-count");
const keepCopies = byId<HTMLInputElement>("keep-copies");
const sync = setUpSync(ext);

async function render(): Promise<void> {
  const state = await loadState(storage);
  if (serverInput.value === "") serverInput.value = state.server ?? "";
  const signedIn = state.server !== null && state.token !== null;
  byId("account").hidden = !signedIn;
  byId("account-server").textContent = state.server ?? "";
  signInButton.textContent = signedIn ? "Sign in again" : "Sign in";
  if (!signedIn && state.signedOutReason) say(message, state.signedOutReason, "error");
  if (document.activeElement !== pinCount) pinCount.value = String(state.pinCount);
  keepCopies.checked = state.keepCopies;
  const last = state.lastSync;
  say(byId("last-sync"), last ? `${last.message} (${new Date(last.at).toLocaleString()})` : "", last && !last.ok ? "error" : "info");
  await sync.render();
}

byId("server-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const address = parseServerAddress(serverInput.value);
  if (!address.ok) return say(message, address.reason, "error");
  // Asked before anything is awaited: browsers show a permission prompt only during the click.
  const granted = ext.permissions.request({ origins: [hostPermission(address.origin)] }).catch(() => false);
  void connect(address.origin, granted);
});

/** thisDevice is what names this browser's token: its system, and a branded Chromium's brands (Firefox has none). */
async function thisDevice(): Promise<{ os?: string; brands?: readonly { brand: string }[] }> {
  const os = await ext.runtime.getPlatformInfo?.().then((info) => info.os, () => undefined);
  const agent = (navigator as Navigator & { userAgentData?: { brands?: { brand: string }[] } }).userAgentData;
  return { os, brands: agent?.brands };
}

async function connect(origin: string, granted: Promise<boolean>): Promise<void> {
  signInButton.disabled = true;
  try {
    if (!(await granted)) {
      return say(message, `linkshelf needs your permission to reach ${new URL(origin).host}; without it the browser blocks every request to the server.`, "error");
    }
    say(message, `Checking ${origin}…`);
    const problem = await checkServer(origin);
    if (problem) return say(message, problem.message, "error");
    // Signing in again replaces this browser's token: the one it holds is revoked first, so the
    // server, which hands an extension at most one new token a minute, hands one at once.
    const held = await loadState(storage);
    if (held.server !== null && held.token !== null) await revokeHeldToken(held.server, held.token);
    say(message, "Sign in to linkshelf in the window that opened…");
    const result = await signIn(ext.identity, origin, await thisDevice());
    if (!result.ok) return say(message, result.reason, "error");
    await saveSignIn(storage, origin, result.token);
    // The account shows the new sign-in before the page says it worked.
    await render();
    say(message, "Signed in. Your favorites appear in the “linkshelf” folder on the bookmarks bar.", "ok");
  } finally {
    signInButton.disabled = false;
    await render();
  }
}

byId("sign-out").addEventListener("click", async () => {
  const held = await loadState(storage);
  const revoked = held.server !== null && held.token !== null && await revokeHeldToken(held.server, held.token);
  await forgetToken(storage, null);
  // The bookmarks stay; a later sign-in and Start syncing matches them again, duplicating nothing.
  await stopSync(storage, { at: Date.now(), ok: true, message: "Signed out: syncing stopped. The bookmarks are kept.", items: 0 });
  say(message, revoked
    ? "Signed out. The server no longer accepts this browser's token."
    : "Signed out here. The server could not be reached, so it keeps this browser's token until you revoke it there (the account page, or linkshelf token revoke).", "ok");
  await render();
});

pinCount.addEventListener("change", async () => {
  const count = Number(pinCount.value);
  if (!Number.isInteger(count) || count < 1 || count > MAX_PIN_COUNT) {
    return say(byId("last-sync"), `Pin between 1 and ${MAX_PIN_COUNT} favorites.`, "error");
  }
  await storage.set({ pinCount: count });
});

keepCopies.addEventListener("change", () => void storage.set({ keepCopies: keepCopies.checked }));

byId("refresh").addEventListener("click", () => void ext.runtime.sendMessage({ type: "refresh" }).then(render));
ext.storage.onChanged.addListener(() => void render());
void render();
