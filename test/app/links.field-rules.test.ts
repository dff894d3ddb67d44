import { describe, expect, it } from "bun:test";
import { AppError } from "../../src/common/errors";
import { aliceWithInbox, chars, shelfFor, snapshot, type TestEnv, type TestUser } from "../support/helpers";

/**
 * A link's fields have one set of rules, whichever way the link is written: a link created (the
 * API, the pages, a batch) and a link an import writes. Each field of the table goes through both
 * ways; both must refuse it with the same errors and change nothing, or store it the same way.
 * A rule changed for one way and not the other fails here.
 */

interface Fields {
  name: string;
  url: string;
  description: string;
}

const valid: Fields = { name: "Fine", url: "https://fine.example/", description: "" };

/** Fields each way must refuse, each with the paths it is refused at. */
const REFUSED: [string, Partial<Fields>, string[]][] = [
  ["an empty name", { name: "" }, ["/name"]],
  ["a name of white space only", { name: " \t " }, ["/name"]],
  ["a name one character too long", { name: chars(255) }, ["/name"]],
  ["a name of 255 characters outside the BMP", { name: chars(255, "😀") }, ["/name"]],
  ["a name with a control character", { name: "bell\u0007name" }, ["/name"]],
  ["a name with a line separator", { name: "two\u2028lines" }, ["/name"]],
  ["a name with a bidirectional control", { name: "evil\u202Egnp.exe" }, ["/name"]],
  ["a name with nothing visible", { name: "\u200B\u200B" }, ["/name"]],
  ["a description one character too long", { description: chars(301) }, ["/description"]],
  ["a javascript: URL", { url: "javascript:alert(1)" }, ["/url"]],
  ["a data: URL", { url: "data:text/html,<script>alert(1)</script>" }, ["/url"]],
  ["an ftp URL", { url: "ftp://files.example/" }, ["/url"]],
  ["a relative URL", { url: "/relative/path" }, ["/url"]],
  ["a URL without a host", { url: "https://" }, ["/url"]],
  ["a URL past 2048 characters", { url: `https://long.example/${chars(2048)}` }, ["/url"]],
  ["every field at once", { name: "", description: chars(400), url: "mailto:a@b.example" }, ["/name", "/description", "/url"]],
];

/** Fields each way must accept, and store as the same row. */
const ACCEPTED: [string, Partial<Fields>][] = [
  ["padded fields (trimmed)", { name: "  Padded  ", url: "  https://padded.example/a  ", description: "  said  " }],
  ["a name of 254 characters", { name: chars(254) }],
  ["a name of 254 characters outside the BMP", { name: chars(254, "😀") }],
  ["a description of 300 characters", { description: chars(300) }],
  ["an http URL with a port, query and fragment", { url: "http://127.0.0.1:8080/a?b=c#d" }],
];

/** refusal is the error a write threw (or null), as the API answers it: code and field errors. */
async function refusal(write: () => unknown): Promise<{ code: string; errors: unknown } | null> {
  try {
    await write();
    return null;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { code: error.code, errors: error.errors };
  }
}

/** The two ways a link is written, each with the fields given. */
function writers(env: TestEnv, alice: TestUser, inbox: number) {
  const shelf = shelfFor(env, alice);
  return {
    created: (fields: Fields) => shelf.links.create({ ...fields, favorite: false }, env.clock.now++),
    imported: (fields: Fields) => {
      const now = env.clock.now++;
      return shelf.imports.write([{ kind: "link", into: inbox, ...fields, favorite: false, createdAt: now, updatedAt: now }], undefined, now);
    },
  };
}

/** The stored row of the owner's newest link, without what differs between two writes (id, dates). */
function newestRow(env: TestEnv): Record<string, unknown> {
  const row = env.db.$client.query("SELECT name, url, description, favorite, to_read, archived, clicks FROM links ORDER BY id DESC LIMIT 1").get();
  return row as Record<string, unknown>;
}

describe("a link's fields: one set of rules for a created link and an imported one", () => {
  for (const [what, fields, paths] of REFUSED) {
    it(`refuses ${what} the same way on both, changing nothing`, async () => {
      const { env, alice, inbox } = await aliceWithInbox();
      const write = writers(env, alice, inbox);
      const before = snapshot(env);
      const created = await refusal(() => write.created({ ...valid, ...fields }));
      expect(snapshot(env)).toBe(before);
      const imported = await refusal(() => write.imported({ ...valid, ...fields }));
      expect(snapshot(env)).toBe(before);
      expect(created?.code).toBe("VALIDATION_FAILED");
      expect((created!.errors as { path: string }[]).map((error) => error.path)).toEqual(paths);
      expect(imported).toEqual(created);
    });
  }

  for (const [what, fields] of ACCEPTED) {
    it(`accepts ${what} on both, storing the same row`, async () => {
      const { env, alice, inbox } = await aliceWithInbox();
      const write = writers(env, alice, inbox);
      write.created({ ...valid, ...fields });
      const created = newestRow(env);
      await write.imported({ ...valid, ...fields });
      expect(newestRow(env)).toEqual(created);
      expect(env.db.$client.query("SELECT count(*) AS n FROM links").get()).toEqual({ n: 2 });
    });
  }
});
