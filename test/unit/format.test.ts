/** Numbers and counts as people read them, the one way every page and the command line write them. */
import { describe, expect, it } from "bun:test";
import { countOf, formatNumber } from "../../src/common/format";

describe("formatNumber and countOf", () => {
  it("group thousands with commas", () => {
    expect([0, 7, 999, 1_000, 20_094, 1_234_567].map(formatNumber)).toEqual(["0", "7", "999", "1,000", "20,094", "1,234,567"]);
  });

  it("give a count its noun in the right number, irregular plurals when given", () => {
    expect([countOf(0, "link"), countOf(1, "link"), countOf(2, "link"), countOf(2_284, "collection")]).toEqual(["0 links", "1 link", "2 links", "2,284 collections"]);
    expect([countOf(1, "match", "matches"), countOf(3, "match", "matches")]).toEqual(["1 match", "3 matches"]);
  });
});
