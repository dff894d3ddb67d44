/**
 * What the benchmarks of background work share: `GET /l/:id` of one public link measured against
 * a bare Bun.serve 302, in rounds alternating the two, and the server's memory. Used by
 * bench/capture-load.ts (the page fetcher) and bench/link-check-load.ts (the link checker).
 */
import { readFileSync } from "node:fs";
import { median, timedLoad } from "./lib";

/** The rounds' medians and each round's ratio of linkshelf to the bare server. */
export interface Rounds {
  bare: number;
  app: number;
  ratio: number;
  ratios: number[];
}

/**
 * alternatingRounds loads the bare URL then linkshelf's (`timedLoad`: wrk when installed), after
 * a warm-up of each, `rounds` times, `seconds` each: each round's ratio compares two runs seconds
 * apart, so the machine's other load moves both alike.
 */
export async function alternatingRounds(appUrl: string, bareUrl: string, rounds: number, seconds = 3): Promise<Rounds> {
  const bareRuns: number[] = [];
  const appRuns: number[] = [];
  const ratios: number[] = [];
  for (const url of [bareUrl, appUrl]) await timedLoad(url, seconds, 32);
  for (let round = 0; round < rounds; round++) {
    bareRuns.push((await timedLoad(bareUrl, seconds, 32)).requestsPerSecond);
    appRuns.push((await timedLoad(appUrl, seconds, 32)).requestsPerSecond);
    ratios.push(appRuns.at(-1)! / bareRuns.at(-1)!);
  }
  return { bare: median(bareRuns), app: median(appRuns), ratio: median(ratios), ratios };
}

/** peakRssMiB reads a process's peak resident set size (VmHWM) from /proc. */
export function peakRssMiB(pid: number): number {
  return Number(/^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
}

/** apiPoster POSTs JSON to a linkshelf server's API with a token and reads the answer. */
export function apiPoster(base: string, token: string) {
  return async (path: string, body: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    return (await response.json()) as Record<string, { id: number }>;
  };
}

/**
 * publicRedirect creates a public collection holding one link (to `url`) and returns that link's
 * `/l/:id` address. The default target is a closed loopback port: a server that reads saved pages
 * fails that link's page at once, without looking anything up.
 */
export async function publicRedirect(base: string, token: string, url = "http://127.0.0.1:9/"): Promise<string> {
  const api = apiPoster(base, token);
  const collection = (await api("/api/v1/collections", { name: "Public", visibility: "PUBLIC" })).collection!;
  const link = (await api("/api/v1/links", { name: "Example", url, favorite: true, collectionIds: [collection.id] })).link!;
  return `${base}/l/${link.id}`;
}

/** roundsLine says one set of rounds: the median ratio, each round's, and the medians. */
export function roundsLine(label: string, rounds: Rounds): string {
  const x = (value: number) => `${value.toFixed(2)}×`;
  return `  ${label}: ${x(rounds.ratio)} (rounds ${rounds.ratios.map(x).join(" ")}; medians ${rounds.app.toFixed(0)} / ${rounds.bare.toFixed(0)} req/s)`;
}
