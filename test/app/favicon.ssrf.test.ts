/**
 * The favicon proxy's outbound guard. The only listening targets are fake origins on
 * 127.0.0.1; every other address in here must be refused before any connection is made,
 * which `mappedConnect` proves by recording every address the proxy asks to connect to
 * (and by throwing, rather than connecting, for anything that is not loopback).
 */
import { describe, expect, it } from "bun:test";
import { IPv4, IPv6, parse } from "ipaddr.js";
import { classifyAddress, isAdmitted, type AddressKind } from "../../src/outbound/address";
import { parseIPv6 } from "../../src/common/ip";
import { checkedAddresses, pinnedConnect, Refused } from "../../src/outbound/fetch";
import { placeholderSvg } from "../../src/favicon/placeholder";
import {
  bytesOf,
  FAKE_PUBLIC,
  getFavicon,
  makeFaviconEnv,
  mappedConnect,
  page,
  PNG,
  redirectTo,
  resolverOf,
  stoppedAfterEach,
  TLS_FAV,
  TLS_OTHER,
  type FaviconEnv,
} from "../support/favicon.fixtures";

const { origin } = stoppedAfterEach();

/** A fake origin that would happily serve an icon to anyone who reached it. */
const iconOrigin = () => origin({ "/": () => page('<link rel="icon" href="/i.png">'), "/i.png": () => bytesOf(PNG), "/favicon.ico": () => bytesOf(PNG) });

const cacheRows = (env: FaviconEnv) => env.db.$client.query("SELECT origin FROM favicon_cache").all();

describe("the address classifier", () => {
  const cases: [string, AddressKind][] = [
    ["0.0.0.0", "unspecified"], ["0.255.255.255", "unspecified"], ["1.0.0.0", "public"],
    ["9.255.255.255", "public"], ["10.0.0.0", "private"], ["10.255.255.255", "private"], ["11.0.0.0", "public"],
    ["100.63.255.255", "public"], ["100.64.0.0", "cgnat"], ["100.127.255.255", "cgnat"], ["100.128.0.0", "public"],
    ["126.255.255.255", "public"], ["127.0.0.0", "loopback"], ["127.0.0.1", "loopback"], ["127.255.255.255", "loopback"], ["128.0.0.0", "public"],
    ["169.253.255.255", "public"], ["169.254.0.0", "link-local"], ["169.254.169.254", "link-local"], ["169.254.255.255", "link-local"], ["169.255.0.0", "public"],
    ["172.15.255.255", "public"], ["172.16.0.0", "private"], ["172.31.255.255", "private"], ["172.32.0.0", "public"],
    ["192.167.255.255", "public"], ["192.168.0.0", "private"], ["192.168.255.255", "private"], ["192.169.0.0", "public"],
    ["223.255.255.255", "public"], ["224.0.0.0", "multicast"], ["239.255.255.255", "multicast"],
    ["240.0.0.0", "reserved"], ["255.255.255.254", "reserved"], ["255.255.255.255", "broadcast"],
    ["8.8.8.8", "public"], [FAKE_PUBLIC, "public"],

    ["::", "unspecified"], ["::1", "loopback"], ["[::1]", "loopback"], ["::2", "unspecified"],
    ["::ffff:127.0.0.1", "loopback"], ["::ffff:7f00:1", "loopback"], ["::ffff:10.0.0.1", "private"],
    ["::ffff:169.254.169.254", "link-local"], ["::ffff:100.64.0.1", "cgnat"], ["::ffff:0.0.0.0", "unspecified"], ["::ffff:8.8.8.8", "public"],
    ["::127.0.0.1", "loopback"], ["::a00:1", "private"], ["::8.8.8.8", "public"], ["::ffff:0:127.0.0.1", "loopback"],
    ["64:ff9b::127.0.0.1", "loopback"], ["64:ff9b::a00:1", "private"], ["64:ff9b::169.254.169.254", "link-local"], ["64:ff9b::8.8.8.8", "public"],
    ["64:ff9b:1::1", "private"],
    ["2002:7f00:1::1", "loopback"], ["2002:c0a8:101::", "private"], ["2002:a9fe:a9fe::1", "link-local"], ["2002:808:808::1", "public"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "public"], ["2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback"], ["2001:0:a00:1::", "private"],
    ["1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "reserved"], ["2000::", "public"], ["3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "public"], ["4000::", "reserved"],
    ["fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "reserved"], ["fc00::", "private"], ["fd12:3456::1", "private"], ["fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "private"],
    ["fe00::", "reserved"], ["fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "reserved"],
    ["fe80::", "link-local"], ["fe80::1%eth0", "link-local"], ["febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "link-local"],
    ["fec0::1", "private"], ["feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "private"],
    ["ff00::", "multicast"], ["ff02::1", "multicast"], ["ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "multicast"],
    ["2606:4700:4700::1111", "public"], ["2001:db8::1", "public"], ["100::1", "reserved"],

    ["", "unknown"], ["localhost", "unknown"], ["1.2.3", "unknown"], ["01.2.3.4", "unknown"], ["256.0.0.1", "unknown"],
    ["0x7f.0.0.1", "unknown"], ["1.2.3.4.5", "unknown"], ["1:2:3", "unknown"], ["::g", "unknown"], ["1::2::3", "unknown"], [":::", "unknown"],
  ];
  it.each(cases)("classifies %p as %p", (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it("parses every IPv6 spelling into the same eight groups", () => {
    const loopbackV4 = [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1];
    expect(parseIPv6("::ffff:127.0.0.1")).toEqual(loopbackV4);
    expect(parseIPv6("0:0:0:0:0:ffff:7f00:0001")).toEqual(loopbackV4);
    expect(parseIPv6("[::FFFF:7F00:1]")).toEqual(loopbackV4);
    expect(parseIPv6("1:2:3:4:5:6:7:8")).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseIPv6("1::")).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6("1:2:3:4:5:6:7:8:9")).toBeNull();
    expect(parseIPv6("1:2:3:4:5:6:7::8")).toBeNull();
    expect(parseIPv6("12345::")).toBeNull();
  });

  it("admits public addresses always, loopback and private only with the flag, and nothing else ever", () => {
    const kinds: AddressKind[] = ["public", "loopback", "private", "cgnat", "link-local", "unspecified", "multicast", "broadcast", "reserved", "unknown"];
    expect(kinds.filter((kind) => isAdmitted(kind, false))).toEqual(["public"]);
    expect(kinds.filter((kind) => isAdmitted(kind, true))).toEqual(["public", "loopback", "private"]);
  });

  it.each(["2130706433", "0x7f000001", "0177.0.0.1", "127.1", "0x7f.1", "017700000001", "127.0.0.1.", "0x7F.0.0.1", "%31%32%37.0.0.1"])(
    "sees the numeric host %p as 127.0.0.1 after the URL parser normalised it",
    (host) => {
      const hostname = new URL(`http://${host}/`).hostname;
      expect(hostname).toBe("127.0.0.1");
      expect(classifyAddress(hostname)).toBe("loopback");
    },
  );

  it("sees an IPv4-mapped IPv6 host in its normalised form", () => {
    const hostname = new URL("http://[::ffff:127.0.0.1]/").hostname;
    expect(hostname).toBe("[::ffff:7f00:1]");
    expect(classifyAddress(hostname)).toBe("loopback");
  });
});

describe("the ranges ipaddr.js names", () => {
  // An address in every range the library names (each part of a range in parts), the library's
  // name for it, and the kind the guard gives it. Where they disagree, the kind was decided.
  const decided: [range: string, address: string, kind: AddressKind][] = [
    ["unicast", "8.8.8.8", "public"], ["unspecified", "0.0.0.1", "unspecified"], ["broadcast", "255.255.255.255", "broadcast"],
    ["multicast", "224.0.0.1", "multicast"], ["linkLocal", "169.254.1.1", "link-local"], ["loopback", "127.0.0.1", "loopback"],
    ["carrierGradeNat", "100.64.0.1", "cgnat"], ["private", "10.0.0.1", "private"], ["private", "172.16.0.1", "private"], ["private", "192.168.0.1", "private"],
    // Reserved for future use: refused.
    ["reserved", "240.0.0.1", "reserved"], ["reserved", "255.255.255.254", "reserved"],
    // The rest of the library's "reserved" is no one's local network: IETF protocol assignments,
    // documentation, the 6to4 relay anycast, benchmarking (what fake-IP DNS proxies answer).
    ["reserved", "192.0.0.9", "public"], ["reserved", "192.0.2.1", "public"], ["reserved", "192.88.99.1", "public"],
    ["reserved", "198.18.0.1", "public"], ["reserved", "198.19.255.255", "public"], ["reserved", "198.51.100.1", "public"], ["reserved", "203.0.113.7", "public"],
    // Public services.
    ["as112", "192.175.48.1", "public"], ["as112", "192.31.196.1", "public"], ["amt", "192.52.193.1", "public"],

    ["unicast", "2606:4700:4700::1111", "public"], ["unicast", "4000::", "reserved"], ["unicast", "fe00::", "reserved"], ["unicast", "::a00:1", "private"],
    ["unspecified", "::", "unspecified"], ["loopback", "::1", "loopback"], ["linkLocal", "fe80::1", "link-local"], ["multicast", "ff02::1", "multicast"],
    ["uniqueLocal", "fd00::1", "private"], ["deprecatedSiteLocal", "fec0::1", "private"],
    // The forms that carry an IPv4 address: it decides.
    ["ipv4Mapped", "::ffff:10.0.0.1", "private"], ["ipv4Mapped", "::ffff:8.8.8.8", "public"],
    ["rfc6145", "::ffff:0:127.0.0.1", "loopback"], ["rfc6145", "::ffff:0:8.8.8.8", "public"],
    ["rfc6052", "64:ff9b::a00:1", "private"], ["rfc6052", "64:ff9b::8.8.8.8", "public"], ["rfc6052", "64:ff9b:1::808:808", "private"],
    ["6to4", "2002:7f00:1::1", "loopback"], ["6to4", "2002:808:808::1", "public"],
    ["teredo", "2001:0:a00:1::", "private"], ["teredo", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "public"],
    // Outside 2000::/3, the only global unicast: reserved.
    ["discard", "100::1", "reserved"], ["segmentRouting", "5f00::1", "reserved"],
    // Inside it, and public like the rest of it: IETF protocol assignments, documentation,
    // benchmarking, identifiers and anycast services.
    ["reserved", "2001:1::1", "public"], ["reserved", "2001:db8::1", "public"], ["reserved", "3fff::1", "public"],
    ["benchmarking", "2001:2::1", "public"], ["amt", "2001:3::1", "public"], ["as112v6", "2001:4:112::1", "public"], ["as112v6", "2620:4f:8000::1", "public"],
    ["deprecatedOrchid", "2001:10::1", "public"], ["orchid2", "2001:20::1", "public"], ["droneRemoteIdProtocolEntityTags", "2001:30::1", "public"],
  ];

  it.each(decided)("classifies the library's %p range (%p) as %p", (range, address, kind) => {
    const named: string = parse(address).range();
    expect(named).toBe(range);
    expect(classifyAddress(address)).toBe(kind);
  });

  it("has decided a kind for every range the library names, in both families", () => {
    const namesOf = (prototype: object) => ["unicast", ...Object.keys((prototype as { SpecialRanges: object }).SpecialRanges)];
    const decidedIn = (family: string) => new Set(decided.filter(([, address]) => parse(address).kind() === family).map(([range]) => range));
    expect(namesOf(IPv4.prototype).filter((range) => !decidedIn("ipv4").has(range))).toEqual([]);
    expect(namesOf(IPv6.prototype).filter((range) => !decidedIn("ipv6").has(range))).toEqual([]);
  });
});

describe("checkedAddresses", () => {
  const signal = new AbortController().signal;

  it("refuses a name when any of its addresses is refused, naming the kind", async () => {
    const resolve = resolverOf({ "mixed.test": [FAKE_PUBLIC, "192.168.1.9"] });
    const error = await checkedAddresses("mixed.test", { resolve, allowPrivate: false, signal }).catch((e) => e);
    expect(error).toBeInstanceOf(Refused);
    expect(error.kind).toBe("private");
  });

  it("refuses link-local even with the flag, next to an admitted address", async () => {
    const resolve = resolverOf({ "meta.test": ["127.0.0.1", "169.254.169.254"] });
    const error = await checkedAddresses("meta.test", { resolve, allowPrivate: true, signal }).catch((e) => e);
    expect(error).toBeInstanceOf(Refused);
    expect(error.kind).toBe("link-local");
  });

  it("answers IP literals and localhost names without asking the resolver", async () => {
    const resolve = resolverOf({});
    const check = (host: string) => checkedAddresses(host, { resolve, allowPrivate: true, signal });
    expect(await check("127.0.0.1")).toEqual(["127.0.0.1"]);
    expect(await check("[::1]")).toEqual(["::1"]);
    expect(await check("localhost")).toEqual(["127.0.0.1", "::1"]);
    expect(await check("api.LOCALHOST.")).toEqual(["127.0.0.1", "::1"]);
    expect(resolve.asked).toEqual([]);
  });

  it("fails, without refusing, for a name with no address", async () => {
    const error = await checkedAddresses("empty.test", { resolve: async () => [], allowPrivate: false, signal }).catch((e) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(Refused);
  });
});

describe("GET /favicon without LINKSHELF_FAVICON_ALLOW_PRIVATE", () => {
  const corpus = [
    "127.0.0.1", "localhost", "localhost.", "icons.localhost", "[::1]",
    "2130706433", "0x7f000001", "0177.0.0.1", "127.1", "0x7f.1",
    "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[::127.0.0.1]", "[64:ff9b::127.0.0.1]", "[2002:7f00:1::1]",
    "10.0.0.1", "172.16.0.1", "192.168.1.1", "[fd00::1]", "169.254.169.254", "[fe80::1]", "[::ffff:169.254.169.254]",
    "100.64.0.1", "0.0.0.0", "[::]", "224.0.0.1", "255.255.255.255", "[ff02::1]",
    "loopback.test", "mixed.test", "mixed-v6.test", "rfc1918.test",
  ];

  it.each(corpus)("refuses %s before any connection and answers the placeholder", async (host) => {
    const target = iconOrigin();
    const resolve = resolverOf({
      "loopback.test": ["127.0.0.1"],
      "mixed.test": [FAKE_PUBLIC, "10.0.0.5"],
      "mixed-v6.test": ["2606:4700:4700::1111", "::1"],
      "rfc1918.test": ["192.168.1.20"],
    });
    const connect = mappedConnect();
    const env = makeFaviconEnv({ resolve, connect });
    const url = `http://${host}:${target.port}/`;
    const response = await getFavicon(env, url);

    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/svg+xml");
    expect(response.text).toBe(placeholderSvg(new URL(url).hostname.replace(/^\[|\]$/g, "")));
    expect(connect.addresses).toEqual([]);
    expect(target.hits).toEqual([]);
    // A refusal is decided locally and not cached.
    expect(cacheRows(env)).toEqual([]);
  });

  it.each([
    ["127.0.0.1 by number", (port: number) => `http://127.0.0.1:${port}/`],
    ["127.0.0.1 as a decimal integer", (port: number) => `http://2130706433:${port}/`],
    ["an IPv4-mapped loopback", (port: number) => `http://[::ffff:127.0.0.1]:${port}/`],
    ["a name resolving to loopback", (port: number) => `http://loopback.test:${port}/`],
    ["the cloud metadata address", () => "http://169.254.169.254/latest/meta-data/"],
    ["a private address", () => "http://10.0.0.1/"],
    ["file:", () => "file:///etc/passwd"],
    ["gopher:", (port: number) => `gopher://127.0.0.1:${port}/`],
  ])("follows a public origin's redirect to %s no further", async (_name, location) => {
    const target = iconOrigin();
    const site = origin({ "/": () => redirectTo(location(target.port)), "/favicon.ico": () => redirectTo(location(target.port)) });
    const resolve = resolverOf({ "public.test": [FAKE_PUBLIC], "loopback.test": ["127.0.0.1"] });
    const connect = mappedConnect();
    const response = await getFavicon(makeFaviconEnv({ resolve, connect }), `http://public.test:${site.port}/`);

    expect(response.headers.get("content-type")).toBe("image/svg+xml");
    expect(site.hits).toEqual(["/", "/favicon.ico"]);
    expect(site.hosts).toEqual([`public.test:${site.port}`, `public.test:${site.port}`]);
    expect(connect.addresses).toEqual([FAKE_PUBLIC, FAKE_PUBLIC]);
    expect(target.hits).toEqual([]);
  });

  it("does not fetch an icon a public page declares on a loopback or private host", async () => {
    const target = iconOrigin();
    const site = origin({
      "/": () => page(`<link rel="icon" sizes="64x64" href="http://127.0.0.1:${target.port}/i.png"><link rel="icon" href="http://10.1.2.3/i.png">`),
    });
    const connect = mappedConnect();
    const response = await getFavicon(makeFaviconEnv({ resolve: resolverOf({ "public.test": [FAKE_PUBLIC] }), connect }), `http://public.test:${site.port}/`);
    expect(response.headers.get("content-type")).toBe("image/svg+xml");
    expect(site.hits).toEqual(["/", "/favicon.ico"]);
    expect(connect.addresses).toEqual([FAKE_PUBLIC, FAKE_PUBLIC]);
    expect(target.hits).toEqual([]);
  });

  it("serves a public origin's icon (reached through the mapping) with the Host it asked for", async () => {
    const site = iconOrigin();
    const connect = mappedConnect();
    const response = await getFavicon(makeFaviconEnv({ resolve: resolverOf({ "public.test": [FAKE_PUBLIC] }), connect }), `http://public.test:${site.port}/`);
    expect(response.bytes).toEqual(PNG);
    expect(site.hosts).toEqual([`public.test:${site.port}`, `public.test:${site.port}`]);
    expect(connect.addresses).toEqual([FAKE_PUBLIC, FAKE_PUBLIC]);
  });

  it("connects only to the address it checked, so a rebinding resolver cannot slip loopback in", async () => {
    const site = origin({ "/": () => page('<link rel="icon" href="/i.png">'), "/i.png": () => bytesOf(PNG) });
    const asked: string[] = [];
    // The first answer is public; every later one (a rebinding attack) is loopback.
    const resolve = async (hostname: string) => (asked.push(hostname), asked.length === 1 ? [FAKE_PUBLIC] : ["127.0.0.1"]);
    const connect = mappedConnect();
    const response = await getFavicon(makeFaviconEnv({ resolve, connect }), `http://rebind.test:${site.port}/`);

    // Each request resolves once and is checked; the second and third answers are refused.
    expect(asked).toEqual(["rebind.test", "rebind.test", "rebind.test"]);
    expect(connect.addresses).toEqual([FAKE_PUBLIC]);
    expect(site.hits).toEqual(["/"]);
    expect(response.headers.get("content-type")).toBe("image/svg+xml");
  });
});

describe("GET /favicon with LINKSHELF_FAVICON_ALLOW_PRIVATE=1", () => {
  it.each(["127.0.0.1", "localhost", "2130706433", "[::ffff:127.0.0.1]"])("reaches a fake origin on loopback as %s", async (host) => {
    const site = iconOrigin();
    const connect = mappedConnect();
    const response = await getFavicon(makeFaviconEnv({ allowPrivate: true, connect }), `http://${host}:${site.port}/`);
    expect(response.bytes).toEqual(PNG);
    expect(connect.addresses.every((address) => address === "127.0.0.1" || address === "::ffff:7f00:1")).toBe(true);
  });

  it.each(["169.254.169.254", "[::ffff:169.254.169.254]", "[fe80::1]", "0.0.0.0", "100.64.0.1", "224.0.0.1", "meta.test"])(
    "still refuses %s before any connection",
    async (host) => {
      const connect = mappedConnect();
      const resolve = resolverOf({ "meta.test": ["169.254.169.254"] });
      const response = await getFavicon(makeFaviconEnv({ allowPrivate: true, resolve, connect }), `http://${host}/latest/meta-data/`);
      expect(response.headers.get("content-type")).toBe("image/svg+xml");
      expect(connect.addresses).toEqual([]);
    },
  );

  it("still refuses an origin's redirect to the metadata address", async () => {
    const site = origin({ "/": () => redirectTo("http://169.254.169.254/latest/meta-data/"), "/favicon.ico": () => redirectTo("http://169.254.169.254/") });
    const connect = mappedConnect();
    const response = await getFavicon(makeFaviconEnv({ allowPrivate: true, connect }), site.url);
    expect(response.headers.get("content-type")).toBe("image/svg+xml");
    expect(connect.addresses).toEqual(["127.0.0.1", "127.0.0.1"]);
  });
});

describe("the real connection is pinned to the checked address", () => {
  it("reaches a name the system cannot resolve through the address the injected resolver gave", async () => {
    const site = iconOrigin();
    const resolve = resolverOf({ "pinned.invalid": ["127.0.0.1"] });
    // The production connection: Bun's fetch to the checked IP literal, with the name in Host.
    const response = await getFavicon(makeFaviconEnv({ allowPrivate: true, resolve, connect: pinnedConnect() }), `http://pinned.invalid:${site.port}/`);
    expect(response.bytes).toEqual(PNG);
    expect(site.hosts).toEqual([`pinned.invalid:${site.port}`, `pinned.invalid:${site.port}`]);
  });

  describe("over https", () => {
    const tlsOrigin = () => origin({ "/": () => page("hello") }, [
      { ...TLS_FAV, serverName: "fav.test" },
      { ...TLS_OTHER, serverName: "other.test" },
    ]);
    const get = (connect: ReturnType<typeof pinnedConnect>, url: string) =>
      connect({ url: new URL(url), address: "127.0.0.1", headers: {}, signal: AbortSignal.timeout(4000) });

    it("sends the URL's name as SNI and Host and verifies the certificate against it", async () => {
      const site = tlsOrigin();
      const response = await get(pinnedConnect({ ca: TLS_FAV.cert }), `https://fav.test:${site.port}/`);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain("hello");
      expect(site.hosts).toEqual([`fav.test:${site.port}`]);
    });

    it("gets the certificate the SNI name selects, and refuses it when it is not trusted", async () => {
      const site = tlsOrigin();
      // The server picks other.test's certificate by SNI; only fav.test's is trusted.
      await expect(get(pinnedConnect({ ca: TLS_FAV.cert }), `https://other.test:${site.port}/`)).rejects.toThrow();
      const trusted = await get(pinnedConnect({ ca: [TLS_FAV.cert, TLS_OTHER.cert] }), `https://other.test:${site.port}/`);
      expect(trusted.status).toBe(200);
    });

    it("checks an IP-literal URL's certificate against the IP, which these certificates do not name", async () => {
      const site = tlsOrigin();
      await expect(get(pinnedConnect({ ca: [TLS_FAV.cert, TLS_OTHER.cert] }), `https://127.0.0.1:${site.port}/`)).rejects.toThrow();
      expect(site.hits).toEqual([]);
    });

    it("serves an https origin's icon end to end", async () => {
      const site = origin({ "/": () => page('<link rel="icon" href="/i.png">'), "/i.png": () => bytesOf(PNG) }, [{ ...TLS_FAV, serverName: "fav.test" }]);
      const env = makeFaviconEnv({ allowPrivate: true, resolve: resolverOf({ "fav.test": ["127.0.0.1"] }), connect: pinnedConnect({ ca: TLS_FAV.cert }) });
      const response = await getFavicon(env, `https://fav.test:${site.port}/`);
      expect(response.bytes).toEqual(PNG);
      expect(site.hosts).toEqual([`fav.test:${site.port}`, `fav.test:${site.port}`]);
    });
  });
});
