import { describe, expect, it } from "bun:test";
import type { CollectionJson } from "../../src/contract/collections";
import type { LinkJson } from "../../src/contract/links";
import { findSaved, normalizeUrl, sameUrl } from "../../extension/src/normalize";

describe("normalizeUrl", () => {
  it("lower-cases the scheme and host and drops the default port", () => {
    expect(normalizeUrl("HTTPS://Example.COM:443/Path")).toBe("https://example.com/Path");
    expect(normalizeUrl("http://example.com:80/a")).toBe("http://example.com/a");
    expect(normalizeUrl("http://example.com:8080/a")).toBe("http://example.com:8080/a");
    expect(normalizeUrl("https://example.com:80/a")).toBe("https://example.com:80/a");
  });

  it("ignores one trailing slash of the path, the root's included", () => {
    expect(normalizeUrl("https://example.com/docs/")).toBe("https://example.com/docs");
    expect(normalizeUrl("https://example.com/")).toBe(normalizeUrl("https://example.com"));
    expect(normalizeUrl("https://example.com/docs/?page=2")).toBe("https://example.com/docs?page=2");
  });

  it("removes utm_*, fbclid and gclid and keeps every other parameter in its order and spelling", () => {
    expect(normalizeUrl("https://example.com/a?utm_source=x&b=2&UTM_Medium=y&a=1&fbclid=z&gclid=w&a=%20+")).toBe("https://example.com/a?b=2&a=1&a=%20+");
    expect(normalizeUrl("https://example.com/a?utm_source=x")).toBe("https://example.com/a");
    expect(normalizeUrl("https://example.com/a?")).toBe("https://example.com/a");
    expect(normalizeUrl("https://example.com/a?utm=1&xutm_source=2")).toBe("https://example.com/a?utm=1&xutm_source=2");
  });

  it("drops an empty fragment and keeps a non-empty one, which may name another page", () => {
    expect(normalizeUrl("https://example.com/a#")).toBe("https://example.com/a");
    expect(normalizeUrl("https://mail.example/#/inbox")).toBe("https://mail.example#/inbox");
    expect(sameUrl("https://mail.example/#/inbox", "https://mail.example/#/settings")).toBe(false);
  });

  it("keeps other schemes as parsed and text that is no address as typed, trimmed", () => {
    expect(normalizeUrl("FTP://Example.com/a/")).toBe("ftp://example.com/a/");
    expect(normalizeUrl("  not an address ")).toBe("not an address");
  });
});

describe("sameUrl", () => {
  it("finds the variants of one address the same and different pages different", () => {
    const base = "http://127.0.0.1:4000/article";
    for (const variant of ["http://127.0.0.1:4000/article/", "HTTP://127.0.0.1:4000/article?utm_source=x", "http://127.0.0.1:4000/article#"]) {
      expect({ variant, same: sameUrl(base, variant) }).toEqual({ variant, same: true });
    }
    expect(sameUrl("https://Example.com/a", "https://example.com/a")).toBe(true);
    expect(sameUrl("https://example.com/A", "https://example.com/a")).toBe(false);
    expect(sameUrl("https://example.com/a?id=1", "https://example.com/a?id=2")).toBe(false);
    expect(sameUrl("http://example.com/a", "https://example.com/a")).toBe(false);
  });
});

describe("findSaved", () => {
  const link = (id: number, url: string): LinkJson => ({
    id, url, name: `Link ${id}`, description: "", favorite: false, toRead: false, archived: false, copy: null, clicks: 0, lastClickedAt: null, collectionIds: [], authorId: 1,
    createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z",
  });
  const collection = (id: number, name: string, links: LinkJson[]) =>
    ({ id, name, icon: "📁", links, isDefault: id === 1 }) as Partial<CollectionJson> as CollectionJson;

  it("finds the newest link with the address and every collection holding one", () => {
    const collections = [
      collection(1, "Inbox", [link(3, "https://example.com/a/"), link(1, "https://other.example/")]),
      collection(2, "Reading", [link(2, "https://EXAMPLE.com/a?utm_campaign=z")]),
      collection(3, "Empty", []),
    ];
    const match = findSaved(collections, "https://example.com/a");
    expect(match?.link.id).toBe(3);
    expect(match?.collections.map((holder) => holder.name)).toEqual(["Inbox", "Reading"]);
    expect(findSaved(collections, "https://example.com/b")).toBeNull();
  });
});
