/**
 * The search worker's thread (see src/search/searcher.ts): its first message names the
 * database, opened read-only, and is answered `{ready: true}`; every later one is a search of
 * one user's links, answered with the results, a refusal, or a failure. Nothing here writes.
 */
import { openReadOnly, type Db } from "../db/client";
import { AppError, refusalOf } from "../common/errors";
import { searchLinks } from "../shelf/search";
import type { SearchAnswer, SearchRequest, WorkerReady } from "./searcher";

declare const self: Worker;

let db: Db | undefined;

self.onmessage = (event: MessageEvent<SearchRequest | { path: string }>) => {
  const message = event.data;
  if ("path" in message) {
    db = openReadOnly(message.path);
    postMessage({ ready: true } satisfies WorkerReady);
    return;
  }
  let answer: SearchAnswer;
  try {
    answer = { id: message.id, results: searchLinks({ db: db!, user: message.user }, message.input, message.now) };
  } catch (error) {
    answer = error instanceof AppError
      ? { id: message.id, refused: refusalOf(error) }
      : { id: message.id, failed: error instanceof Error ? error.message : String(error) };
  }
  postMessage(answer);
};
