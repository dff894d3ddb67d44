/**
 * Reading a saved page's text on the server: which encoding, which text, how it is laid out and cut.
 */
import { describe, expect, it } from "bun:test";
import { CAPTURE_LIMITS, cut, normalizeText } from "../../src/capture/content";
import { charsetOf, decodePage, metaCharset } from "../../src/capture/decode";
import { extractReadable, extractReadableInSteps } from "../../src/capture/extract";
import { ARTICLE_DROPS, ARTICLE_HTML, ARTICLE_KEEPS, bigPage, CJK_HTML, latin1Page } from "../support/capture.fixtures";

const utf8 = (text: string) => new TextEncoder().encode(text);

/**
 * The limit of the hostile-nesting tests: linear work takes about a second even on a busy machine;
 * work that grew with the square of the nesting would take many minutes.
 */
const HOSTILE_MS = 30_000;

describe("the article among navigation, ads and footers", () => {
  const content = extractReadable(ARTICLE_HTML)!;

  it.each(ARTICLE_KEEPS)("keeps the article's %p", (sentence) => {
    expect(content.text).toContain(sentence);
  });

  it.each(ARTICLE_DROPS)("drops the page chrome's %p", (chrome) => {
    expect(content.text).not.toContain(chrome);
  });

  it("keeps paragraphs and headings as lines of their own, with white space folded", () => {
    const lines = content.text.split("\n");
    expect(lines).toContain("Small worlds, big lessons");
    expect(lines.find((line) => line.startsWith("Twice a day"))).toEndWith("their own rules.");
    expect(content.text).not.toMatch(/ {2}|\n\n|^\s|\s$/);
  });

  it("reads the title, the description as excerpt, the author and the language", () => {
    expect(content).toMatchObject({
      title: "Why Tide Pools Matter | The Coastal Review",
      excerpt: "A field guide to the small worlds left behind by the tide.",
      byline: "Mara Oyelaran",
      lang: "en",
    });
  });

  it("reads the same in steps as at once", async () => {
    expect(await extractReadableInSteps(ARTICLE_HTML)).toEqual(content);
    const big = bigPage(300 * 1024);
    expect(await extractReadableInSteps(big)).toEqual(extractReadable(big));
  });
});

describe("CJK text", () => {
  const content = extractReadable(utf8(CJK_HTML), "text/html; charset=utf-8")!;

  it("keeps Japanese and Chinese paragraphs whole and drops the navigation, the ad and the related list", () => {
    expect(content.text).toContain("毎月二十一日、東寺の境内では「弘法市」と呼ばれる大きな市が開かれる。");
    expect(content.text).toContain("这个市场每个月举办一次");
    for (const chrome of ["ホーム", "広告", "関連記事", "大阪の食べ歩き", "無断転載禁止"]) expect(content.text).not.toContain(chrome);
  });

  it("reads the title, the byline element and the language", () => {
    expect(content).toMatchObject({ title: "京都の朝市を歩く - 旅の手帖", byline: "文・山田花子", lang: "ja", excerpt: "早起きして出かけた京都の朝市の記録。" });
  });
});

describe("the character encoding", () => {
  it.each(["charset", "http-equiv"] as const)("follows a <meta %s> declaration (windows-1252)", (declaration) => {
    const content = extractReadable(latin1Page(declaration))!;
    expect(content.title).toBe("Café crème");
    expect(content.text).toContain("“Le café coûte 3 €”");
  });

  it("takes the HTTP charset over the page's <meta>", () => {
    const bytes = utf8(`<meta charset="windows-1252"><title>café</title>`);
    expect(extractReadable(bytes, "text/html; charset=UTF-8")!.title).toBe("café");
    expect(extractReadable(bytes)!.title).toBe("cafÃ©");
  });

  it("takes a byte order mark over both", () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...utf8(`<meta charset="windows-1252"><title>café</title>`)]);
    expect(extractReadable(bytes, "text/html; charset=windows-1252")!.title).toBe("café");
  });

  it("reads UTF-8 when nothing is declared, and never throws on bytes that are not UTF-8", () => {
    expect(extractReadable(utf8("<title>日本語</title>"))!.title).toBe("日本語");
    expect(extractReadable(latin1Page("none"))!.title).toBe("Caf\uFFFD cr\uFFFDme");
  });

  it("skips a charset label no decoder knows, and reads a declared UTF-16 as UTF-8", () => {
    expect(decodePage(utf8("<title>café</title>"), "text/html; charset=klingon")).toBe("<title>café</title>");
    expect(decodePage(utf8(`<meta charset="utf-16"><p>café`))).toBe(`<meta charset="utf-16"><p>café`);
  });

  it("finds a Shift_JIS declaration in <meta>", () => {
    const bytes = new Uint8Array([...utf8(`<meta charset="Shift_JIS"><title>`), 0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea, ...utf8("</title>")]);
    expect(extractReadable(bytes)!.title).toBe("日本語");
  });

  it.each([
    ["text/html; charset=utf-8", "utf-8"],
    ['text/html; charset="Shift_JIS"', "Shift_JIS"],
    ["text/html;charset=ISO-8859-1;foo=bar", "ISO-8859-1"],
    ["TEXT/HTML; CHARSET = koi8-r", "koi8-r"],
    ["text/html", undefined],
    ["text/html; charset=", undefined],
    [null, undefined],
  ])("reads the charset of Content-Type %p as %p", (header, label) => {
    expect(charsetOf(header)).toBe(label);
  });

  it("looks for <meta> only near the top of the page", () => {
    expect(metaCharset(utf8(`${" ".repeat(4000)}<meta charset="koi8-r">`))).toBe("koi8-r");
    expect(metaCharset(utf8(`${" ".repeat(4096)}<meta charset="koi8-r">`))).toBeUndefined();
  });
});

describe("the text's limits", () => {
  it("cuts the text at 1 MiB of UTF-16 code units, never inside a surrogate pair", () => {
    expect(CAPTURE_LIMITS.textUnits).toBe(1024 * 1024);
    const content = extractReadable(bigPage(2 * 1024 * 1024))!;
    expect(content.text.length).toBe(CAPTURE_LIMITS.textUnits);
    expect(cut("ab😀", 3)).toBe("ab");
    expect(cut("ab😀", 4)).toBe("ab😀");
    expect(cut("abc", 3)).toBe("abc");
    const emoji = extractReadable(`<p>${"😀".repeat(CAPTURE_LIMITS.textUnits / 2 + 1)}x</p>`)!.text;
    expect(emoji.length).toBe(CAPTURE_LIMITS.textUnits);
    expect(emoji.endsWith("😀")).toBe(true);
    const odd = extractReadable(`<p>a${"😀".repeat(CAPTURE_LIMITS.textUnits / 2)}</p>`)!.text;
    expect(odd.length).toBe(CAPTURE_LIMITS.textUnits - 1);
  });

  it("keeps a text of exactly 1 MiB code units whole", () => {
    const text = "a".repeat(CAPTURE_LIMITS.textUnits);
    expect(extractReadable(`<p>${text}</p>`)!.text).toBe(text);
  });

  it("drops the link lists inside a long article but keeps every section", () => {
    const content = extractReadable(bigPage(512 * 1024))!;
    expect(content.text).toContain("Section 40");
    expect(content.text).not.toContain("More coverage");
    expect(content.text).not.toContain("Great read");
  });

  it("cuts a title to 1000 code units and puts it on one line", () => {
    expect(extractReadable(`<title>${"t".repeat(1500)}</title>`)!.title).toHaveLength(CAPTURE_LIMITS.titleUnits);
    expect(extractReadable("<title>\n  Two\n lines </title>")!.title).toBe("Two lines");
  });
});

describe("pages that are not articles", () => {
  it("returns null for a page with no text and no title", () => {
    expect(extractReadable("")).toBeNull();
    expect(extractReadable("<html><head><script>var a = 1</script></head><body><img src=x></body></html>")).toBeNull();
  });

  it("keeps the text of a page without an article container, outside its navigation", () => {
    const content = extractReadable("<title>Notes</title><nav><a href=/>Home</a></nav><div><p>First note.</p><p>Second note.</p></div>")!;
    expect(content.text).toBe("First note.\nSecond note.");
  });

  it("keeps the text of a page that is only a list of links rather than nothing", () => {
    expect(extractReadable("<ul><li><a href=/a>Alpha</a></li><li><a href=/b>Beta</a></li></ul>")!.text).toBe("Alpha\nBeta");
  });

  it("never reads scripts, styles, templates, hidden elements or an SVG's title", () => {
    const content = extractReadable(
      "<title>Page</title><body><script>alert(1)</script><style>p{}</style><template>tpl</template>"
        + "<p hidden>hidden</p><p style='display:none'>gone</p><p aria-hidden=true>aria</p><svg><title>icon</title></svg><p>Visible text.</p></body>",
    )!;
    expect(content).toMatchObject({ title: "Page", text: "Visible text." });
  });

  it("decodes entities and takes the first heading as title when there is no <title>", () => {
    expect(extractReadable("<h1>Fish &amp; Chips</h1><p>&lt;b&gt; &#x1F600; caf&eacute;</p>")).toMatchObject({
      title: "Fish & Chips", text: "Fish & Chips\n<b> 😀 café",
    });
  });

  it("reads 100,000 nested elements without running out of stack", () => {
    const depth = 100_000;
    const content = extractReadable(`<title>Deep</title>${"<div>".repeat(depth)}bottom${"</div>".repeat(depth)}`)!;
    expect(content.text).toBe("bottom");
  }, HOSTILE_MS);

  it("reads 2 MiB of hostile nesting in linear time: 100,000 unclosed <article>s with text, then empty <title>s", () => {
    const articles = "<article>x".repeat(100_000);
    const titles = "<title></title>".repeat(60_000);
    const content = extractReadable(`${"<div>".repeat(50_000)}${titles}${articles}`)!;
    expect(content.text.split("\n")).toHaveLength(100_000);
    expect(content.title).toBe("");
  }, HOSTILE_MS);

  it("folds every kind of white space and drops empty lines", () => {
    expect(normalizeText("  a \t b\u00a0c \n\n \n d  ")).toBe("a b c\nd");
  });
});
