import { describe, expect, it } from "bun:test";
import { createLink, createUser, get, makeEnv } from "../support/helpers";

describe("smoke", () => {
  it("creates a link and lists it in the Inbox", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const link = await createLink(env, alice);
    const response = await get(env, "/api/v1/collections", { token: alice.token });
    expect(response.status).toBe(200);
    expect(response.body.collections[0].links[0].id).toBe(link.id);
  });
});
