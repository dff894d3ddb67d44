/**
 * First run: while no user exists, the sign-in page and the home page say that the first
 * account is made at /setup with the code printed in the server's log; once a user exists
 * the notice is gone and the pages behave as usual.
 */
import { describe, expect, it } from "bun:test";
import { createUser, get, makeEnv, type TestEnv } from "../support/helpers";

const SETUP_CODE = "ABCD-EFGH-JKLM";
const NOTICE = /No account exists yet\. Create the first one at <a href="\/setup">\/setup<\/a> with the setup code printed in the server's log\./;

const firstStart = (): TestEnv => makeEnv({}, { setupCode: SETUP_CODE });

async function form(env: TestEnv, path: string, fields: Record<string, string>) {
  const response = await env.app.handle(new Request(`http://localhost${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  }));
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe("the first-run notice", () => {
  it("is on /login and on / while no user exists, and never shows the code itself", async () => {
    const env = firstStart();
    for (const path of ["/login", "/login?next=/links", "/"]) {
      const page = await get(env, path);
      expect({ path, status: page.status }).toEqual({ path, status: 200 });
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(page.text).toMatch(NOTICE);
      expect(page.text).not.toContain(SETUP_CODE);
    }
    // A failed sign-in on a new server points the same way.
    const failed = await form(env, "/login", { email: "who@example.test", password: "long enough password", next: "/" });
    expect(failed.status).toBe(401);
    expect(failed.text).toMatch(NOTICE);
  });

  it("is gone once the first account is made at /setup: / asks for a sign-in again", async () => {
    const env = firstStart();
    const made = await form(env, "/setup", { code: SETUP_CODE, email: "first@example.test", name: "First", password: "long enough password" });
    expect(made.status).toBe(303);
    const login = await get(env, "/login");
    expect(login.status).toBe(200);
    expect(login.text).not.toMatch(/No account exists yet/);
    const home = await get(env, "/");
    expect(home.status).toBe(303);
    expect(home.headers.get("location")).toBe("/login?next=%2F");
  });

  it("is not shown by a server that started with users (no setup code), nor after a user was made another way", async () => {
    const started = makeEnv();
    expect((await get(started, "/login")).text).not.toMatch(/No account exists yet/);
    expect((await get(started, "/")).status).toBe(303);

    const env = firstStart();
    await createUser(env);
    expect((await get(env, "/login")).text).not.toMatch(/No account exists yet/);
    expect((await get(env, "/")).status).toBe(303);
  });
});
