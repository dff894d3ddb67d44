/**
 * A fake site on 127.0.0.1 under the made-up name `site.test`, and the server's real background
 * capture reaching it (no other address is ever contacted), for the tests that queue links.
 */
import { ContentFetcher, createContentCapture, type ContentCapture, type StoreContent } from "../../src/capture/fetcher";
import { loadConfig } from "../../src/common/config";
import { FAKE_PUBLIC, fakeOrigin, mappedConnect, resolverOf, type FakeOrigin, type Handler } from "./favicon.fixtures";

export interface CapturingSite {
  site: FakeOrigin;
  /** `http://site.test:<port>` */
  base: string;
  /** As the server builds it from `env` (`LINKSHELF_FETCH_CONTENT=off`: nothing is fetched). */
  capture: ContentCapture;
  /** settle waits until the capture has nothing queued or running. */
  settle(): Promise<void>;
  /** stop stops the capture, then the site. */
  stop(): Promise<void>;
}

/** capturingSite serves `pages` and builds a capture from `env` that fetches them and hands them to `store`. */
export function capturingSite(pages: Record<string, Handler>, env: Record<string, string>, store: StoreContent): CapturingSite {
  const site = fakeOrigin(pages);
  const capture = createContentCapture({ config: loadConfig({}, env), clock: Date.now, log: () => undefined }, store,
    { resolve: resolverOf({ "site.test": [FAKE_PUBLIC] }), connect: mappedConnect(), hostSpacingMillis: 0 });
  return {
    site,
    base: `http://site.test:${site.port}`,
    capture,
    settle: async () => {
      if (capture instanceof ContentFetcher) await capture.whenIdle();
    },
    stop: async () => {
      await capture.stop();
      site.stop();
    },
  };
}
