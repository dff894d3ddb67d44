/**
 * A browser syncing a folder with the real app through `app.handle`: the fake bookmarks tree and
 * storage of extension.fakes.ts, a fetch that can be offline or lose answers after the server
 * handled them, and the trees of both sides written as text to compare.
 */
import { syncFolder } from "../../extension/src/sync/engine";
import { saveSync } from "../../extension/src/sync/store";
import { APP_ORIGIN, FakeBookmarks, FakeStorage, type MoveSemantics } from "./extension.fakes";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { writeBackup } from "../../src/db/backup";
import { closeDatabase } from "../../src/db/client";
import { restoreDatabase } from "../../src/db/restore";
import { testDir } from "./dirs";
import { get, makeEnv, type TestEnv, type TestUser } from "./helpers";
import { treeLines, type ListedCollection } from "./extension.sync.server";

/** What went over the wire: method and path of each request. */
export type Sent = string[];

export class SyncingBrowser {
  readonly bookmarks: FakeBookmarks;
  readonly storage = new FakeStorage();
  readonly sent: Sent = [];
  /** What came back for each request: `METHOD /path status`. */
  readonly answered: string[] = [];
  /** Every request fails as if the server were down. */
  offline = false;
  /** Answers lost on the way back after the server handled the request, by `METHOD /path`. */
  private losing = new Map<string, number>();
  /** How many answers were replays of an earlier answer (`Idempotent-Replayed`). */
  replayed = 0;
  folderId = "";
  private keys = 0;
  /** Runs before the app handles each request (`METHOD /path`): another client's write at a chosen moment. */
  before: ((sent: string) => Promise<void>) | null = null;

  /** env is the app the browser talks to: a test replaces it by the app of a restored database. */
  constructor(public env: TestEnv, readonly user: TestUser, semantics: MoveSemantics = "before-removal", readonly name = "browser") {
    this.bookmarks = new FakeBookmarks(semantics);
  }

  readonly fetch = (async (input: string, init?: RequestInit) => {
    if (this.offline) throw new TypeError("fetch failed");
    const request = new Request(input, init);
    this.sent.push(`${request.method} ${new URL(request.url).pathname}`);
    const sent = `${request.method} ${new URL(request.url).pathname}`;
    await this.before?.(sent);
    const response = await this.env.app.handle(request);
    this.answered.push(`${sent} ${response.status}`);
    if (response.headers.get("Idempotent-Replayed") === "true") this.replayed++;
    const losing = this.losing.get(sent) ?? 0;
    if (losing > 0) {
      this.losing.set(sent, losing - 1);
      throw new TypeError("the connection was reset");
    }
    return response;
  }) as typeof fetch;

  /** lose makes the answers of the next `times` requests to `sent` (`METHOD /path`) get lost after the server handled them. */
  lose(sent: string, times: number): void {
    this.losing.set(sent, times);
  }

  /** start signs in and pairs `folderId` with `collectionId`, as the options page does. */
  async start(folderId: string, collectionId: number): Promise<void> {
    this.folderId = folderId;
    await this.storage.set({ server: APP_ORIGIN, token: this.user.token });
    await saveSync(this.storage, { config: { folderId, collectionId } });
  }

  sync(force = false) {
    return syncFolder({
      bookmarks: this.bookmarks,
      storage: this.storage,
      fetch: this.fetch,
      now: () => this.env.clock.now++,
      newKey: () => `${this.name}-${++this.keys}`,
    }, { force });
  }

  /** tree is the synced folder as text: a line per item, indented by depth, a folder as `Name/`, a bookmark as `Title url`. */
  async tree(folderId = this.folderId): Promise<string[]> {
    const lines: string[] = [];
    const walk = async (id: string, depth: number) => {
      for (const child of await this.bookmarks.getChildren(id)) {
        if (child.url === undefined) {
          lines.push(`${"  ".repeat(depth)}${child.title}/`);
          await walk(child.id, depth + 1);
        } else if (/^https?:/.test(child.url)) lines.push(`${"  ".repeat(depth)}${child.title} ${child.url}`);
      }
    };
    await walk(folderId, 0);
    return lines;
  }
}

/** serverTree is a collection's subtree as text, in the same form as SyncingBrowser.tree. */
export async function serverTree(env: TestEnv, as: TestUser, collectionId: number): Promise<string[]> {
  return treeLines((await get(env, `/api/v1/collections?under=${collectionId}`, { token: as.token })).body.collections as ListedCollection[], collectionId);
}

/**
 * A server on a database file, backed up and restored as `linkshelf backup` and `linkshelf
 * restore` do (src/db/backup.ts, src/db/restore.ts): the app closed, the backup put in place,
 * a new app on the same file (its clock going on from the old one's).
 */
export class RestorableServer {
  readonly dir = testDir("sync-restore");
  readonly path = join(this.dir, "linkshelf.db");
  env: TestEnv;
  private backups = 0;

  constructor(private readonly variables: Record<string, string>) {
    this.env = makeEnv(variables, { path: this.path });
  }

  backup(): string {
    const file = join(this.dir, `backup-${++this.backups}.db`);
    writeBackup(this.env.db.$client, file);
    return file;
  }

  /**
   * restore puts `file` in place of the database; `diskDied` removes the database first, as when
   * the disk that held it died, so that nothing of what came after the backup is left (ids may be reused).
   */
  restore(file: string, diskDied = false): TestEnv {
    const clock = this.env.clock.now;
    closeDatabase(this.env.db);
    if (diskDied) for (const suffix of ["", "-wal", "-shm"]) rmSync(this.path + suffix, { force: true });
    restoreDatabase(file, this.path, clock);
    this.env = makeEnv(this.variables, { path: this.path });
    this.env.clock.now = clock + 1000;
    return this.env;
  }
}
