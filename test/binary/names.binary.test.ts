/**
 * The name rule on the command line: `user create --name` and `token create --name` refuse what
 * the API refuses, with the same message, exit 1 and nothing stored.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { rmSync } from "node:fs";
import { binaryWorkspace, cleanEnv, createUserWithToken, queryFile, runBinary, type BinaryWorkspace } from "../support/binary";
import { GOOD_NAMES } from "../support/names.fixtures";
import { NAME_MESSAGES } from "../../src/common/rules";

const SLOW = 60_000;
let workspace: BinaryWorkspace;

beforeAll(async () => {
  workspace = binaryWorkspace("names");
  await createUserWithToken(workspace, "names@example.test", "Names", cleanEnv());
}, 60_000);

afterAll(() => {
  if (workspace) rmSync(workspace.root, { recursive: true, force: true });
});

const cli = (args: string[], stdin?: string) =>
  runBinary(workspace.binary, [...args, "--data-dir", workspace.dataDir], { cwd: workspace.cwd, stdin });
const count = (table: string) => queryFile<{ n: number }>(workspace.dbPath, `SELECT count(*) AS n FROM ${table}`)[0]!.n;

describe("names on the command line", () => {
  const refused: [string, string, string][] = [
    ["a right-to-left override", "invoice\u202Efdp.exe", NAME_MESSAGES.forbidden],
    ["an escape sequence", "\u001B[31mred", NAME_MESSAGES.forbidden],
    ["a C1 control", "a\u009Bb", NAME_MESSAGES.forbidden],
    ["only U+200B", "\u200B", NAME_MESSAGES.invisible],
  ];

  it.each(refused)("user create refuses a name with %s: exit 1, the rule's message, no user", async (_label, name, message) => {
    const users = count("users");
    const result = await cli(["user", "create", "--email", `x${users}@example.test`, "--name", name], "long enough password\n");
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`name: ${message}`);
    expect(count("users")).toBe(users);
  }, SLOW);

  it.each(refused)("token create refuses a name with %s: exit 1, the rule's message, no token", async (_label, name, message) => {
    const tokens = count("api_tokens");
    const result = await cli(["token", "create", "--email", "names@example.test", "--name", name]);
    expect([result.exitCode, result.stdout]).toEqual([1, ""]);
    expect(result.stderr).toContain(`name: ${message}`);
    expect(count("api_tokens")).toBe(tokens);
  }, SLOW);

  it("token create and user create keep an emoji ZWJ sequence and a combining mark", async () => {
    const name = `${GOOD_NAMES["an emoji ZWJ sequence in words"]} ${GOOD_NAMES["a combining accent"]}`;
    const token = await cli(["token", "create", "--email", "names@example.test", "--name", name]);
    expect(token.exitCode).toBe(0);
    const user = await cli(["user", "create", "--email", "kept@example.test", "--name", name], "long enough password\n");
    expect(user.exitCode).toBe(0);
    expect(queryFile(workspace.dbPath, "SELECT name FROM users WHERE email = 'kept@example.test'")).toEqual([{ name }]);
    expect(queryFile(workspace.dbPath, "SELECT name FROM api_tokens WHERE name = ?", [name])).toEqual([{ name }]);
  }, SLOW);
});
