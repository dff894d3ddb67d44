import { describe, expect, it, spyOn } from "bun:test";
import { MAX_BODY_BYTES } from "../../src/request/json-body";
import {
  createCollection,
  createLink,
  createUser,
  del,
  get,
  inboxOf,
  makeEnv,
  post,
  put,
  request,
  snapshot,
  type ApiResponse,
  type TestEnv,
} from "../support/helpers";

const MIB = 1024 * 1024;
const validLink = { name: "A page", url: "https://example.org/", favorite: false };

/** Traces of the server's insides that must never reach a client. */
const LEAKS = [/\n\s+at /, /\.ts:\d+/, /node_modules/, /\/work\//, /SQLITE/i, /no such table/i, /\bSELECT\b/, /Error:/];

/** expectError checks the contract's error answer: JSON, exactly {message, code} (+ errors on 422), no internals. */
function expectError(response: ApiResponse, status: number, code: string): void {
  expect({ status: response.status, code: response.body?.code }).toEqual({ status, code });
  expect(response.headers.get("content-type")).toStartWith("application/json");
  expect(Object.keys(response.body).sort()).toEqual(status === 422 ? ["code", "errors", "message"] : ["code", "message"]);
  expect(typeof response.body.message).toBe("string");
  expect(response.body.message.length).toBeGreaterThan(0);
  if (status === 422) {
    expect(response.body.errors.length).toBeGreaterThan(0);
    for (const error of response.body.errors) {
      expect(Object.keys(error).sort()).toEqual(["message", "path"]);
      expect(error.path).toStartWith("/");
    }
  }
  for (const leak of LEAKS) expect(response.text).not.toMatch(leak);
}

/** send hands the app a request built by hand: a byte or stream body gets no Content-Type unless given one. */
async function send(env: TestEnv, method: string, path: string, init: { headers?: Record<string, string>; body?: Uint8Array | ReadableStream<Uint8Array> } = {}): Promise<ApiResponse> {
  const streamed = init.body instanceof ReadableStream;
  const response = await env.app.handle(new Request(`http://localhost${path}`, {
    method,
    headers: init.headers,
    body: init.body,
    ...(streamed ? { duplex: "half" } : {}),
  } as RequestInit));
  const text = await response.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
}

/** jsonOfSize is a valid link body of exactly `bytes` UTF-8 bytes, padded with JSON white space (so validation has nothing to say). */
function jsonOfSize(bytes: number): string {
  const json = JSON.stringify(validLink);
  const text = json.slice(0, -1) + " ".repeat(bytes - json.length) + "}";
  expect(new TextEncoder().encode(text).byteLength).toBe(bytes);
  return text;
}

/** countingStream yields 64 KiB chunks up to `total` bytes and counts how many bytes were pulled. */
function countingStream(total: number): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= total) return controller.close();
      pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { stream, pulled: () => pulled };
}

describe("error bodies", () => {
  it("are exactly {message, code} for 400, 401, 404, 409, 413, 415 and 429, and add errors on 422 only", async () => {
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "100/60" });
    const alice = await createUser(env);
    const token = alice.token;
    const json = { "content-type": "application/json" };

    expectError(await post(env, "/api/v1/links", { token, body: "{", headers: json }), 400, "INVALID_JSON");
    expectError(await get(env, "/api/v1/collections"), 401, "UNAUTHORIZED");
    expectError(await del(env, "/api/v1/links/12345", { token }), 404, "NOT_FOUND");
    expectError(await get(env, "/api/v1/nothing-here", { token }), 404, "NOT_FOUND");
    expectError(await del(env, `/api/v1/collections/${await inboxOf(env, alice)}`, { token }), 409, "DEFAULT_COLLECTION");
    expectError(await post(env, "/api/v1/links", { token, body: jsonOfSize(MIB + 1), headers: json }), 413, "PAYLOAD_TOO_LARGE");
    expectError(await post(env, "/api/v1/links", { token, body: JSON.stringify(validLink), headers: { "content-type": "text/plain" } }), 415, "UNSUPPORTED_MEDIA_TYPE");
    expectError(await post(env, "/api/v1/links", { token, body: { ...validLink, name: "" } }), 422, "VALIDATION_FAILED");
    expectError(await post(env, "/api/v1/collections", { token, body: { name: 5 } }), 422, "VALIDATION_FAILED");

    const limited = makeEnv({ LINKSHELF_RATE_LIMIT: "1/60" });
    const bob = await createUser(limited);
    expect((await get(limited, "/api/v1/collections", { token: bob.token })).status).toBe(200);
    const refused = await get(limited, "/api/v1/collections", { token: bob.token });
    expectError(refused, 429, "RATE_LIMITED");
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("answers an unexpected failure with 500 INTERNAL and no detail, and logs it server-side", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    env.db.$client.run("DROP TABLE link_collections");
    const logged = spyOn(console, "error").mockImplementation(() => {});
    try {
      const response = await get(env, "/api/v1/links/favorites", { token: alice.token });
      expectError(response, 500, "INTERNAL");
      expect(response.text).not.toContain("link_collections");
      expect(logged).toHaveBeenCalled();
    } finally {
      logged.mockRestore();
    }
  });
});

describe("request bodies", () => {
  it("refuses malformed JSON with 400 INVALID_JSON and stores nothing", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const before = snapshot(env);
    for (const text of ["{", "{\"name\": }", "nul", "{'name': 'x'}", "[1, 2,]", "\u0000"]) {
      const response = await post(env, "/api/v1/links", { token: alice.token, body: text, headers: { "content-type": "application/json" } });
      expectError(response, 400, "INVALID_JSON");
    }
    expect(snapshot(env)).toBe(before);
  });

  it("refuses an empty body sent as JSON with 400 INVALID_JSON, since the Content-Type was right", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const before = snapshot(env);
    expectError(await send(env, "POST", "/api/v1/links", { headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json" } }), 400, "INVALID_JSON");
    expect(snapshot(env)).toBe(before);
  });

  it("refuses JSON that is valid but not an object with 422 and stores nothing", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const before = snapshot(env);
    for (const text of ["[]", "null", "42", "\"link\""]) {
      const response = await post(env, "/api/v1/links", { token: alice.token, body: text, headers: { "content-type": "application/json" } });
      expect(response.status).toBe(422);
      expect(response.body.code).toBe("VALIDATION_FAILED");
    }
    expect(snapshot(env)).toBe(before);
  });

  it("refuses a body without Content-Type with 415 and stores nothing", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const before = snapshot(env);
    const bytes = new TextEncoder().encode(JSON.stringify(validLink));
    const response = await send(env, "POST", "/api/v1/links", { headers: { authorization: `Bearer ${alice.token}` }, body: bytes });
    expectError(response, 415, "UNSUPPORTED_MEDIA_TYPE");
    expectError(await send(env, "POST", "/api/v1/links", { headers: { authorization: `Bearer ${alice.token}` } }), 415, "UNSUPPORTED_MEDIA_TYPE");
    expect(snapshot(env)).toBe(before);
  });

  it("refuses a JSON body labelled with another media type with 415 and stores nothing", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const link = await createLink(env, alice);
    const collection = await createCollection(env, alice);
    const before = snapshot(env);
    const types = ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx", "application/ld+json", "text/json", "json"];
    for (const type of types) {
      const headers = { "content-type": type };
      expectError(await post(env, "/api/v1/links", { token: alice.token, body: JSON.stringify(validLink), headers }), 415, "UNSUPPORTED_MEDIA_TYPE");
      expectError(await put(env, `/api/v1/links/${link.id}`, { token: alice.token, body: JSON.stringify({ ...validLink, collectionIds: [] }), headers }), 415, "UNSUPPORTED_MEDIA_TYPE");
      expectError(await post(env, "/api/v1/collections", { token: alice.token, body: JSON.stringify({ name: "X", visibility: "PUBLIC" }), headers }), 415, "UNSUPPORTED_MEDIA_TYPE");
      expectError(await put(env, `/api/v1/collections/${collection.id}`, { token: alice.token, body: JSON.stringify({ name: "X", visibility: "PUBLIC" }), headers }), 415, "UNSUPPORTED_MEDIA_TYPE");
    }
    expect(snapshot(env)).toBe(before);
  });

  it("accepts application/json with parameters and in any case", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    for (const type of ["application/json", "application/json; charset=utf-8", "application/json;charset=UTF-8", "Application/JSON", "APPLICATION/JSON; CHARSET=UTF-8"]) {
      const response = await post(env, "/api/v1/links", { token: alice.token, body: JSON.stringify({ ...validLink, name: type }), headers: { "content-type": type } });
      expect({ type, status: response.status }).toEqual({ type, status: 201 });
      expect(response.body.link.name).toBe(type);
    }
  });

  it("ignores a body sent with DELETE, whatever its type", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const link = await createLink(env, alice);
    const response = await del(env, `/api/v1/links/${link.id}`, { token: alice.token, body: "not json", headers: { "content-type": "text/plain" } });
    expect(response.status).toBe(200);
  });
});

describe("body size", () => {
  it("accepts a body of exactly 1 MiB", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    expect(MAX_BODY_BYTES).toBe(MIB);
    const response = await post(env, "/api/v1/links", { token: alice.token, body: jsonOfSize(MIB), headers: { "content-type": "application/json" } });
    expect(response.status).toBe(201);
    expect(response.body.link.name).toBe(validLink.name);
  });

  it("counts bytes, not characters: 1 MiB of multi-byte UTF-8 is accepted, one byte more is 413", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    // "é" is 2 bytes (pad with one "x" when the remainder is odd), in a property the API ignores.
    const empty = JSON.stringify({ ...validLink, padding: "" });
    const room = MIB - empty.length;
    const padding = "é".repeat(Math.floor(room / 2)) + "x".repeat(room % 2);
    const exact = JSON.stringify({ ...validLink, padding });
    expect(new TextEncoder().encode(exact).byteLength).toBe(MIB);
    const ok = await post(env, "/api/v1/links", { token: alice.token, body: exact, headers: { "content-type": "application/json" } });
    expect(ok.status).toBe(201);

    const before = snapshot(env);
    const over = JSON.stringify({ ...validLink, padding: padding + "x" });
    expectError(await post(env, "/api/v1/links", { token: alice.token, body: over, headers: { "content-type": "application/json" } }), 413, "PAYLOAD_TOO_LARGE");
    expect(snapshot(env)).toBe(before);
  });

  it("refuses a body of 1 MiB + 1 byte with 413 and stores nothing", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const before = snapshot(env);
    const response = await post(env, "/api/v1/links", { token: alice.token, body: jsonOfSize(MIB + 1), headers: { "content-type": "application/json" } });
    expectError(response, 413, "PAYLOAD_TOO_LARGE");
    expect(snapshot(env)).toBe(before);
  });

  it("refuses an oversized body on every write route", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const link = await createLink(env, alice);
    const collection = await createCollection(env, alice);
    const before = snapshot(env);
    const body = jsonOfSize(MIB + 1);
    const headers = { "content-type": "application/json" };
    expectError(await put(env, `/api/v1/links/${link.id}`, { token: alice.token, body, headers }), 413, "PAYLOAD_TOO_LARGE");
    expectError(await post(env, "/api/v1/collections", { token: alice.token, body, headers }), 413, "PAYLOAD_TOO_LARGE");
    expectError(await put(env, `/api/v1/collections/${collection.id}`, { token: alice.token, body, headers }), 413, "PAYLOAD_TOO_LARGE");
    expect(snapshot(env)).toBe(before);
  });

  it("refuses a streamed oversized body without Content-Length, and stops reading it", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const before = snapshot(env);
    const { stream, pulled } = countingStream(64 * MIB);
    const response = await send(env, "POST", "/api/v1/links", {
      headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json" },
      body: stream,
    });
    expectError(response, 413, "PAYLOAD_TOO_LARGE");
    expect(pulled()).toBeLessThan(8 * MIB);
    expect(snapshot(env)).toBe(before);
  });

  it("refuses a streamed oversized body whose Content-Length claims it is small", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const before = snapshot(env);
    const { stream } = countingStream(2 * MIB);
    const response = await send(env, "POST", "/api/v1/links", {
      headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json", "content-length": "60" },
      body: stream,
    });
    expectError(response, 413, "PAYLOAD_TOO_LARGE");
    expect(snapshot(env)).toBe(before);
  });

  it("refuses a body whose Content-Length declares more than 1 MiB before reading it", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const before = snapshot(env);
    const { stream, pulled } = countingStream(2 * MIB);
    const response = await send(env, "POST", "/api/v1/links", {
      headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json", "content-length": String(MIB + 1) },
      body: stream,
    });
    expectError(response, 413, "PAYLOAD_TOO_LARGE");
    expect(pulled()).toBeLessThan(MIB);
    expect(snapshot(env)).toBe(before);
  });
});

describe("routes", () => {
  it("answers an unknown route with 404 NOT_FOUND as JSON, inside and outside the API", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    expectError(await get(env, "/api/v1/link", { token: alice.token }), 404, "NOT_FOUND");
    expectError(await get(env, "/api/v1/links/1/clicks", { token: alice.token }), 404, "NOT_FOUND");
    expectError(await get(env, "/api/v2/collections", { token: alice.token }), 404, "NOT_FOUND");
    expectError(await get(env, "/api/v1", { token: alice.token }), 404, "NOT_FOUND");
    expectError(await get(env, "/no/such/page"), 404, "NOT_FOUND");
  });

  it("answers an unknown API route as JSON even to a browser", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    expectError(await get(env, "/api/v1/nothing", { token: alice.token, headers: { accept: "text/html,*/*" } }), 404, "NOT_FOUND");
  });

  it("asks for a token before saying that an API route does not exist", async () => {
    const env = makeEnv();
    const response = await get(env, "/api/v1/nothing");
    expectError(response, 401, "UNAUTHORIZED");
    expect(response.headers.get("www-authenticate")).toBe("Bearer");
  });

  it("answers an unknown method on a known path with 404 and changes nothing", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const link = await createLink(env, alice, { favorite: true });
    const collection = await createCollection(env, alice);
    const before = snapshot(env);
    const token = alice.token;
    const body = { ...validLink, collectionIds: [] };
    expectError(await request(env, "PATCH", `/api/v1/links/${link.id}`, { token, body }), 404, "NOT_FOUND");
    expectError(await request(env, "PATCH", `/api/v1/collections/${collection.id}`, { token, body: { name: "X", visibility: "PUBLIC" } }), 404, "NOT_FOUND");
    expectError(await del(env, "/api/v1/links/favorites", { token }), 404, "NOT_FOUND");
    expectError(await del(env, "/api/v1/collections", { token }), 404, "NOT_FOUND");
    expectError(await put(env, "/api/v1/collections", { token, body: { name: "X", visibility: "PUBLIC" } }), 404, "NOT_FOUND");
    expectError(await post(env, `/api/v1/links/${link.id}`, { token, body }), 404, "NOT_FOUND");
    expectError(await post(env, "/api/v1/links/favorites", { token, body }), 404, "NOT_FOUND");
    expectError(await post(env, "/healthz", { body: {} }), 404, "NOT_FOUND");
    expect(snapshot(env)).toBe(before);
  });

  it("answers an id that is not a positive integer with 404 and changes nothing", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    await createLink(env, alice);
    const before = snapshot(env);
    for (const id of ["0", "-1", "1.0", "1e0", "01", "abc", "%20%31", "99999999999999999999"]) {
      expectError(await del(env, `/api/v1/links/${id}`, { token: alice.token }), 404, "NOT_FOUND");
      expectError(await del(env, `/api/v1/collections/${id}`, { token: alice.token }), 404, "NOT_FOUND");
    }
    expect(snapshot(env)).toBe(before);
  });

  it("answers GET /healthz with 200 {status: ok} without a token", async () => {
    const env = makeEnv();
    const response = await get(env, "/healthz");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: "ok" });
    expect(response.headers.get("content-type")).toStartWith("application/json");
  });

  it("answers GET /healthz even with a bad token, and does not rate-limit it", async () => {
    const env = makeEnv({ LINKSHELF_RATE_LIMIT: "1/60" });
    for (let i = 0; i < 3; i++) {
      const response = await get(env, "/healthz", { headers: { authorization: "Bearer nonsense" } });
      expect(response.status).toBe(200);
      expect(response.headers.get("ratelimit-limit")).toBeNull();
    }
  });
});

describe("bearer tokens", () => {
  /** Whether one Authorization header value lets a write through; a refused one must change nothing. */
  async function tryWrite(env: TestEnv, authorization: string): Promise<number> {
    const before = snapshot(env);
    const response = await post(env, "/api/v1/links", { body: validLink, headers: { authorization } });
    if (response.status === 401) {
      expectError(response, 401, "UNAUTHORIZED");
      expect(response.headers.get("www-authenticate")).toBe("Bearer");
      expect(snapshot(env)).toBe(before);
    }
    return response.status;
  }

  it("accepts the scheme in any case", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    for (const scheme of ["Bearer", "bearer", "BEARER", "bEaReR"]) {
      expect({ scheme, status: await tryWrite(env, `${scheme} ${alice.token}`) }).toEqual({ scheme, status: 201 });
    }
  });

  it("refuses every other shape of Authorization header with 401 and changes nothing", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const token = alice.token;
    const secret = token.slice("lks_".length);
    const flipped = token.slice(0, 4) + (token[4] === "A" ? "B" : "A") + token.slice(5);
    const variants: Record<string, string> = {
      "another scheme (Basic)": `Basic ${token}`,
      "another scheme (Token)": `Token ${token}`,
      "the token without a scheme": token,
      "the scheme without a token": "Bearer",
      "the scheme glued to the token": `Bearer${token}`,
      "two spaces between scheme and token": `Bearer  ${token}`,
      "a tab between scheme and token": `Bearer\t${token}`,
      "something after the token": `Bearer ${token} extra`,
      "two tokens": `Bearer ${token} ${token}`,
      "the token without its lks_ prefix": `Bearer ${secret}`,
      "the token with another prefix": `Bearer lkx_${secret}`,
      "a well-formed token that does not exist": `Bearer lks_${"A".repeat(43)}`,
      "the right token with one character changed": `Bearer ${flipped}`,
      "the right token lower-cased": `Bearer ${token.toLowerCase()}`,
      "the right token with one more character": `Bearer ${token}A`,
      "the right token with its last character missing": `Bearer ${token.slice(0, -1)}`,
      "the token quoted": `Bearer "${token}"`,
      "an empty header": "",
      "a header of two spaces": "  ",
      "a comma-separated list": `Bearer ${token}, Basic x`,
    };
    // Make sure the lower-cased and one-character-changed tokens really differ from the right one.
    expect(flipped).not.toBe(token);
    expect(token.toLowerCase()).not.toBe(token);
    for (const [name, header] of Object.entries(variants)) {
      expect({ name, status: await tryWrite(env, header) }).toEqual({ name, status: 401 });
    }
  });

  it("treats an Authorization header sent twice as one invalid header", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const before = snapshot(env);
    const headers = new Headers({ "content-type": "application/json" });
    headers.append("authorization", `Bearer ${alice.token}`);
    headers.append("authorization", `Bearer ${alice.token}`);
    const response = await env.app.handle(new Request("http://localhost/api/v1/links", { method: "POST", headers, body: JSON.stringify(validLink) }));
    expect(response.status).toBe(401);
    expect(snapshot(env)).toBe(before);
  });

  it("does not fall back to a session cookie on the API", async () => {
    const env = makeEnv();
    const alice = await createUser(env);
    const before = snapshot(env);
    const response = await post(env, "/api/v1/links", { body: validLink, headers: { cookie: `linkshelf_session=${alice.token}` } });
    expectError(response, 401, "UNAUTHORIZED");
    expect(snapshot(env)).toBe(before);
  });
});
