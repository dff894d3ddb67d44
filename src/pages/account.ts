import type { ImportJson } from "../contract/imports";
import type { TokenInfo } from "../shelf/tokens";
import type { Viewer } from "../shelf/shelf";
import type { GrantInfo } from "../shelf/extensions";
import { iso } from "../common/timestamps";
import { errorSummary, textField, type FieldErrors } from "./form";
import { BROWSER_NAMES } from "./handoff";
import { html, type Html } from "./html";
import { when } from "./links";
import { shell } from "./shell";
import { countOf, formatBytes } from "../common/format";
import type { CopyUsage } from "../shelf/copies";

/** The script of the account page: the token's copy button (the page works without it). */
export const ACCOUNT_SCRIPT = "/assets/account.js";

/**
 * ACCOUNT_JS shows the copy button and copies the new token. `navigator.clipboard` needs a
 * secure context, which a LAN address over plain http is not: then the text is selected and
 * copied with the older `execCommand`.
 */
export const ACCOUNT_JS = `document.querySelectorAll("[data-copy]").forEach(function (button) {
  var field = document.getElementById(button.getAttribute("data-copy"));
  var status = document.getElementById(button.getAttribute("data-copy") + "-status");
  button.hidden = false;
  button.addEventListener("click", function () {
    var done = function () { status.textContent = "Copied."; };
    var fallback = function () { field.focus(); field.select(); status.textContent = document.execCommand("copy") ? "Copied." : "Selected: press Ctrl+C or ⌘C."; };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(field.value).then(done, fallback);
    else fallback();
  });
});
`;

export interface AccountOptions {
  user: Viewer;
  tokens: TokenInfo[];
  /** The browser extensions the user allowed. */
  grants: GrantInfo[];
  /** The user's recorded imports, newest first (undone ones included). */
  imports: ImportJson[];
  /** What the user's page copies take of their room (`LINKSHELF_COPY_QUOTA`, stored bytes). */
  copies: CopyUsage & { quota: number };
  /** A token minted just now: shown this once. */
  newToken?: { name: string; token: string };
  notice?: string | Html;
  passwordErrors?: FieldErrors;
  tokenErrors?: FieldErrors;
  tokenName?: string;
}

/** importList lists the recorded imports, each standing one with its "Undo this import" page. */
function importList(imports: ImportJson[]): Html | undefined {
  if (imports.length === 0) return undefined;
  return html`<h3>Your imports</h3>
<ul class="imports">
${imports.map((record) => html`<li>${record.fileName === "" ? "A file" : record.fileName}, ${record.createdAt.slice(0, 10)} (${record.source === "cli" ? "command line" : "import page"}): ${countOf(record.links, "link")}, ${countOf(record.collections, "collection")}
${record.undoneAt === null ? html`<a href="/imports/${record.id}/undo">Undo this import</a>` : html`<span class="muted">undone ${record.undoneAt.slice(0, 10)}</span>`}</li>`)}
</ul>`;
}

/** accountPage: change the password, list / create / revoke API tokens, list / remove allowed extensions, sign out. */
export function accountPage(options: AccountOptions): Html {
  const { user, tokens, grants } = options;
  const passwordErrors = options.passwordErrors ?? new Map();
  const tokenErrors = options.tokenErrors ?? new Map();
  const content = html`<div class="narrow stack">
<section class="card" aria-labelledby="account-heading">
<h1 id="account-heading">Account</h1>
<p>Signed in as <strong>${user.name}</strong> (${user.email}).</p>
${options.notice ? html`<p class="notice" role="status">${options.notice}</p>` : undefined}
<form method="post" action="/logout"><button type="submit" class="secondary">Sign out</button></form>
</section>

<section class="card" aria-labelledby="copies-heading">
<h2 id="copies-heading">Page copies</h2>
<p id="copies-use">${options.copies.quota === 0 ? "This server keeps no page copies." : html`${countOf(options.copies.copies, "copy", "copies")} take ${formatBytes(options.copies.storedBytes)} of your ${formatBytes(options.copies.quota)} (${formatBytes(options.copies.bytes)} before compression).`}</p>
<p class="hint">The browser extension keeps a copy of a page as you saw it; copies of links in the trash count until the trash lets them go.</p>
</section>

<section class="card" aria-labelledby="tokens-heading">
<h2 id="tokens-heading">API tokens</h2>
<p class="muted">For scripts and the browser extension: send <code>Authorization: Bearer &lt;token&gt;</code>.</p>
${options.newToken ? html`<div class="notice" role="status">
<p><strong>New token “${options.newToken.name}”.</strong> Copy it now: it is not shown again.</p>
<div class="secret">
<label class="visually-hidden" for="new-token">New API token</label>
<input id="new-token" readonly value="${options.newToken.token}" spellcheck="false" autocomplete="off">
<button type="button" class="secondary" data-copy="new-token" hidden>Copy</button>
</div>
<p class="hint" id="new-token-status" role="status"></p>
</div>` : undefined}
${tokens.length === 0 ? html`<p class="empty">No tokens.</p>` : html`<table class="rows">
<thead><tr><th scope="col">Name</th><th scope="col">Created</th><th scope="col" class="hide-narrow">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>
${tokens.map((token) => html`<tr>
<td>${token.name}</td>
<td data-label="Created">${when(iso(token.createdAt))}</td>
<td class="hide-narrow" data-label="Last used">${token.lastUsedAt === null ? "never" : when(iso(token.lastUsedAt))}</td>
<td><form method="post" action="/account/tokens/${token.id}/revoke"><button type="submit" class="plain" aria-label="Revoke ${token.name}">Revoke</button></form></td>
</tr>`)}
</tbody>
</table>`}
${errorSummary(tokenErrors, "The token")}
<form method="post" action="/account/tokens" novalidate>
${textField({ name: "name", label: "New token's name", value: options.tokenName ?? "", errors: tokenErrors, idPrefix: "token-", hint: "Say where it will be used, such as “laptop script”." })}
<div class="form-actions"><button type="submit">Create token</button></div>
</form>
</section>

<section class="card" aria-labelledby="extensions-heading">
<h2 id="extensions-heading">Browser extensions</h2>
<p class="muted">Extensions you allowed to sign in. Each sign-in mints a token; removing an extension deletes its tokens, and it asks for your approval again the next time.</p>
${grants.length === 0 ? html`<p class="empty">No extensions allowed.</p>` : html`<table class="rows">
<thead><tr><th scope="col">Browser</th><th scope="col">Extension id</th><th scope="col">Allowed</th><th scope="col">Tokens</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>
${grants.map((grant) => html`<tr>
<td>${BROWSER_NAMES[grant.browser]}</td>
<td data-label="Extension id"><code>${grant.extensionId}</code></td>
<td data-label="Allowed">${when(iso(grant.approvedAt))}</td>
<td data-label="Tokens">${grant.tokens}</td>
<td><form method="post" action="/account/extensions/${grant.id}/remove"><button type="submit" class="plain" aria-label="Remove extension ${grant.extensionId}">Remove</button></form></td>
</tr>`)}
</tbody>
</table>`}
</section>

<section class="card" aria-labelledby="password-heading">
<h2 id="password-heading">Change password</h2>
<p class="muted">Every other browser and device signed in to this account is signed out; this one stays signed in.</p>
${errorSummary(passwordErrors, "The password")}
<form method="post" action="/account/password" novalidate>
<input type="text" name="username" value="${user.email}" autocomplete="username" hidden>
${textField({ name: "current", label: "Current password", value: "", errors: passwordErrors, type: "password", autocomplete: "current-password", required: true })}
${textField({ name: "password", label: "New password", value: "", errors: passwordErrors, type: "password", autocomplete: "new-password", required: true, hint: "At least 8 characters" })}
${textField({ name: "confirm", label: "New password again", value: "", errors: passwordErrors, type: "password", autocomplete: "new-password", required: true })}
<div class="form-actions"><button type="submit">Change password</button></div>
</form>
</section>

<section class="card" aria-labelledby="transfer-heading">
<h2 id="transfer-heading">Import / export</h2>
<p class="muted">Bring in the bookmarks a browser exported, or download all your links as a bookmarks file.</p>
<div class="actions"><a class="button secondary" href="/import">Import bookmarks</a><a class="button secondary" href="/export">Export all</a><a class="button secondary" href="/export?format=json">Export everything (linkshelf JSON)</a></div>
${importList(options.imports)}
</section>
</div>`;
  return shell({ title: "Account", user, content, script: ACCOUNT_SCRIPT });
}
