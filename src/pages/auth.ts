import { html, type Html } from "./html";
import { errorBox, layout } from "./layout";

/** firstRunNotice tells a new server's visitor where the first account is made. */
export function firstRunNotice(): Html {
  return html`<p class="notice" role="status">No account exists yet. Create the first one at <a href="/setup">/setup</a> with the setup code printed in the server's log.</p>`;
}

/** firstRunPage: the home page of a server that has no user yet. */
export function firstRunPage(): Html {
  return layout("Welcome", html`
<h1>Welcome to linkshelf</h1>
${firstRunNotice()}`);
}

/** loginPage: email and password, with `next` carried in a hidden field; `firstRun` adds the notice about `/setup`. */
export function loginPage(options: { next: string; email?: string; error?: string; firstRun?: boolean }): Html {
  return layout("Sign in", html`
<h1>Sign in</h1>
<p>Sign in to your linkshelf.</p>
${options.firstRun ? firstRunNotice() : undefined}
${errorBox(options.error)}
<form method="post" action="/login">
<input type="hidden" name="next" value="${options.next}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required autofocus value="${options.email ?? ""}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`);
}

/** setupPage: the first user, guarded by the one-time code printed in the server log. */
export function setupPage(options: { email?: string; name?: string; error?: string }): Html {
  return layout("Set up", html`
<h1>Welcome to linkshelf</h1>
<p>Create the first account. The setup code is printed in the server's log.</p>
${errorBox(options.error)}
<form method="post" action="/setup">
<label for="code">Setup code</label>
<input id="code" name="code" autocomplete="one-time-code" required autofocus spellcheck="false">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${options.email ?? ""}">
<label for="name">Name</label>
<input id="name" name="name" autocomplete="name" required value="${options.name ?? ""}">
<label for="password">Password (at least 8 characters)</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="8" required>
<button type="submit">Create account</button>
</form>`);
}
