/**
 * Reading a zip within ZIP_LIMITS: entries inflated as a stream, bounded per entry and in all on
 * the bytes they give (never on what the zip declares), impossible declarations refused before
 * anything is inflated, the event loop running meanwhile; and a refused zip stores nothing.
 */
import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { strToU8, zipSync } from "fflate";
import { importBookmarks } from "../../src/bookmarks/plan";
import { readImportFile } from "../../src/bookmarks/formats";
import { BookmarkFileRefused } from "../../src/bookmarks/netscape";
import { unzipEntries, zipDirectory, ZIP_LIMITS, type InflateTally } from "../../src/bookmarks/zip";
import { createUser, makeEnv, shelfFor, snapshot } from "../support/helpers";
import { deflated, honestZip, lyingZip, pocketRows, rawZip, spaces } from "../support/zips";

const MiB = 1024 * 1024;
const NOW = Date.parse("2026-11-27T12:00:00Z");
/** The most an entry can give beyond its bound before the reading stops: one 64-byte push at deflate's largest expansion. */
const OVERSHOOT = 64 * 1032;
/** A big stream: 256 MiB of spaces, deflated (about 260 KB), made once. */
const BIG = spaces(256);

/** unzipAll reads every file of a zip as the importer does, counting the bytes inflation gives. */
async function unzipAll(zip: Uint8Array) {
  const tally: InflateTally = { produced: 0 };
  const read = unzipEntries(zip, zipDirectory(zip), tally);
  return { tally, read };
}

/** refusedImport imports `zip` for a new user and expects it refused (422 IMPORT_REFUSED, `message`), nothing stored. */
async function refusedImport(zip: Uint8Array, message: string | RegExp) {
  const env = makeEnv();
  const alice = await createUser(env);
  const before = snapshot(env);
  const refused = readImportFile(zip, NOW).then((document) => importBookmarks(shelfFor(env, alice), document, NOW));
  await expect(refused).rejects.toMatchObject({ status: 422, code: "IMPORT_REFUSED", message: expect.stringMatching(message) });
  expect(snapshot(env)).toBe(before);
}

describe("a zip whose entries give more than they declare", () => {
  it("stops a 200-byte entry holding 256 MiB of spaces at once: 422 IMPORT_REFUSED, nothing stored", async () => {
    const zip = rawZip([{ name: "part_000000.csv", packed: BIG, declaredSize: 200 }]);
    const { tally, read } = await unzipAll(zip);
    await expect(read).rejects.toThrow("“part_000000.csv” in the zip file unpacks to more than the 200 bytes the zip states for it: the zip file is damaged or made to overload the server.");
    expect(tally.produced).toBeGreaterThan(200);
    expect(tally.produced).toBeLessThanOrEqual(200 + OVERSHOOT);
    await refusedImport(zip, /unpacks to more than the 200 bytes/);
  });

  it("stops the first of 30 such entries and inflates none of the others", async () => {
    const zip = lyingZip(30, 16);
    const { tally, read } = await unzipAll(zip);
    await expect(read).rejects.toThrow(/“part_000000\.csv” in the zip file unpacks to more than the 200 bytes/);
    expect(tally.produced).toBeLessThanOrEqual(200 + OVERSHOOT);
  });

  it("stops an entry declaring the one-entry cap but holding 256 MiB at that cap", async () => {
    const zip = rawZip([{ name: "part_000000.csv", packed: BIG, declaredSize: ZIP_LIMITS.entryBytes }]);
    const { tally, read } = await unzipAll(zip);
    await expect(read).rejects.toThrow(BookmarkFileRefused);
    expect(tally.produced).toBeGreaterThan(ZIP_LIMITS.entryBytes);
    expect(tally.produced).toBeLessThanOrEqual(ZIP_LIMITS.entryBytes + OVERSHOOT);
  }, 30_000);

  it("refuses an entry that gives fewer bytes than it declares, or ends early, as damaged", async () => {
    const short = rawZip([{ name: "part_000000.csv", packed: deflated(strToU8("title,url\n"), 1), declaredSize: 11 }]);
    await expect((await unzipAll(short)).read).rejects.toThrow("The zip file is damaged: “part_000000.csv” in the zip file unpacks to 10 bytes, not the 11 the zip states. Nothing was stored.");
    const whole = deflated(pocketRows(MiB), 1);
    const cut = rawZip([{ name: "part_000000.csv", packed: whole.subarray(0, whole.length / 2), declaredSize: MiB }]);
    await expect((await unzipAll(cut)).read).rejects.toThrow(/The zip file is damaged/);
  });
});

describe("a zip whose declared sizes are beyond the caps, refused before inflating", () => {
  it("refuses one CSV honestly holding 500 MiB (about 0.5 MB packed) at the one-entry cap: 422, nothing stored", async () => {
    const zip = honestZip(500);
    expect(zip.length).toBeLessThan(MiB);
    const { tally, read } = await unzipAll(zip);
    await expect(read).rejects.toThrow("“part_000000.csv” in the zip file unpacks to 500 MiB, more than the 16 MiB linkshelf reads from one file of a zip.");
    // Whichever check stops it, no more than the cap ever comes out.
    expect(tally.produced).toBeLessThanOrEqual(ZIP_LIMITS.entryBytes + OVERSHOOT);
    await refusedImport(zip, /unpacks to 500 MiB, more than the 16 MiB/);
  }, 30_000);

  it("refuses entries that together unpack to more than 32 MiB, each within the one-entry cap", async () => {
    const packed = deflated(pocketRows(MiB), 12);
    const zip = rawZip(["a", "b", "c"].map((name) => ({ name: `part_${name}.csv`, packed, declaredSize: 12 * MiB })));
    const { tally, read } = await unzipAll(zip);
    await expect(read).rejects.toThrow("The zip file unpacks to 36 MiB, more than the 32 MiB linkshelf reads.");
    expect(tally.produced).toBeLessThanOrEqual(ZIP_LIMITS.bytes + OVERSHOOT);
  }, 30_000);

  it("takes entries of exactly 32 MiB together, each of them real", async () => {
    const half = honestZip(16);
    const [entry] = zipDirectory(half);
    const packed = half.subarray(30 + entry!.name.length, 30 + entry!.name.length + entry!.packedSize);
    const zip = rawZip([{ name: "part_1.csv", packed, declaredSize: 16 * MiB }, { name: "part_2.csv", packed, declaredSize: 16 * MiB }]);
    const { tally, read } = await unzipAll(zip);
    const files = await read;
    expect([...files.values()].map((file) => file.length)).toEqual([16 * MiB, 16 * MiB]);
    expect(tally.produced).toBe(ZIP_LIMITS.bytes);
  }, 30_000);

  it("refuses an entry claiming more than 1,000 times its packed size, inflating nothing", async () => {
    const packed = spaces(1);
    const zip = rawZip([{ name: "part_000000.csv", packed, declaredSize: ZIP_LIMITS.ratio * packed.length + 1 }]);
    const { tally, read } = await unzipAll(zip);
    await expect(read).rejects.toThrow(/“part_000000\.csv” in the zip file claims to unpack to more than 1,000 times its packed size/);
    expect(tally.produced).toBe(0);
  });

  it("refuses 10,001 entries by the directory's count, and takes 10,000", async () => {
    const entries = (count: number) => zipSync(Object.fromEntries(Array.from({ length: count }, (_, at) => [`part_${at}.csv`, strToU8("")])), { level: 0 });
    expect(zipDirectory(entries(ZIP_LIMITS.entries))).toHaveLength(ZIP_LIMITS.entries);
    expect(() => zipDirectory(entries(ZIP_LIMITS.entries + 1))).toThrow("The zip file holds 10,001 files, more than the 10,000 linkshelf reads. Nothing was stored.");
  }, 30_000);

  it("refuses an encrypted entry, and one packed with a method it does not read", async () => {
    const packed = deflated(strToU8("title,url\n"), 1);
    const other = rawZip([{ name: "a.csv", packed, declaredSize: 10, method: 12 }]);
    await expect((await unzipAll(other)).read).rejects.toThrow("“a.csv” in the zip file is packed with a method linkshelf does not read (12)");
    const encrypted = rawZip([{ name: "a.csv", packed, declaredSize: 10 }]);
    // The general-purpose flags' bit 0, in the central directory.
    const view = new DataView(encrypted.buffer);
    const directory = encrypted.length - 22 - 46 - "a.csv".length;
    view.setUint16(directory + 8, view.getUint16(directory + 8, true) | 1, true);
    await expect((await unzipAll(encrypted)).read).rejects.toThrow("“a.csv” in the zip file is encrypted");
  });
});

describe("reading a zip within the caps", () => {
  it("lets the event loop run while it inflates: a 16 MiB entry takes many turns", async () => {
    const zip = honestZip(16);
    let turns = 0;
    let reading = true;
    const spin = () => {
      turns++;
      if (reading) setImmediate(spin);
    };
    setImmediate(spin);
    const files = await (await unzipAll(zip)).read;
    reading = false;
    expect(files.get("part_000000.csv")?.length).toBe(16 * MiB);
    // At most ~1 MiB is inflated between two turns (about 64 turns for 16 MiB of spaces); a reading that held the loop would give one.
    expect(turns).toBeGreaterThanOrEqual(10);
  }, 30_000);

  it("reads a directory written with zip64 fields (Info-ZIP's `zip -fz`) and imports it", async () => {
    const zip = new Uint8Array(readFileSync(join(import.meta.dir, "..", "fixtures", "services", "pocket-zip64.zip")));
    expect(zipDirectory(zip)).toEqual([{ name: "part_000000.csv", method: 8, encrypted: false, packedSize: 226, declaredSize: 386, headerOffset: 0 }]);
    const document = await readImportFile(zip, NOW);
    expect(document.format).toBe("pocket");
    expect(document.bookmarks.map((bookmark) => bookmark.href)).toContain("https://doc.rust-lang.org/rust-by-example/");
  });

  it("refuses a damaged directory: cut short, or its end record pointing outside the file", async () => {
    const zip = zipSync({ "part_000000.csv": strToU8("title,url\n") });
    const unreadable = "The zip file is damaged: linkshelf cannot read its list of files. Nothing was stored.";
    await expect(readImportFile(zip.subarray(0, zip.length - 10), NOW)).rejects.toThrow(unreadable);
    // An end record alone, claiming zip64, with nothing before it for the zip64 locator.
    const end = new Uint8Array(22);
    new DataView(end.buffer).setUint32(0, 0x06054b50, true);
    new DataView(end.buffer).setUint16(10, 0xffff, true);
    expect(() => zipDirectory(end)).toThrow(unreadable);
    const outside = zip.slice();
    new DataView(outside.buffer).setUint32(outside.length - 6, 0x7fffffff, true);
    await expect(readImportFile(outside, NOW)).rejects.toThrow(unreadable);
  });

  it("answers any damage to a zip (bytes changed, cut short) with a document or a refusal, never another error", async () => {
    const pocket = new Uint8Array(readFileSync(join(import.meta.dir, "..", "fixtures", "services", "pocket.csv")));
    const zips = [zipSync({ "part_000000.csv": pocket, "part_000001.csv": pocket }), zipSync({ "part_000000.csv": pocket }, { level: 0 })];
    const damage = fc.record({
      zip: fc.constantFrom(...zips),
      changes: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }),
      keep: fc.option(fc.nat(), { nil: undefined }),
    });
    await fc.assert(fc.asyncProperty(damage, async ({ zip, changes, keep }) => {
      const damaged = zip.slice(0, keep === undefined ? zip.length : Math.max(4, keep % zip.length));
      for (const [at, value] of changes) damaged[4 + (at % (damaged.length - 4))] = value;
      const outcome = await readImportFile(damaged, NOW).then(() => "read", (error: unknown) => error);
      if (outcome !== "read") expect(outcome).toBeInstanceOf(BookmarkFileRefused);
    }), { seed: 20261205, numRuns: 500 });
  });
});

