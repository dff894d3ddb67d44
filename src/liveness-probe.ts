import type { Config } from "./common/config";

/** How long `linkshelf healthcheck` waits for an answer: a container's health probe must not hang. */
const HEALTHCHECK_TIMEOUT_MS = 5_000;

/**
 * healthzUrl is where a server with this configuration answers `/healthz` on this machine: a
 * wildcard listening address (0.0.0.0, ::) is reached over loopback.
 */
export function healthzUrl(config: Pick<Config, "host" | "port">): string {
  const host = config.host === "0.0.0.0" ? "127.0.0.1" : config.host === "::" ? "::1" : config.host;
  return `http://${host.includes(":") ? `[${host}]` : host}:${config.port}/healthz`;
}

/** checkLiveness asks `/healthz`; null when it answered 200, otherwise what went wrong, in one line. */
export async function checkLiveness(config: Pick<Config, "host" | "port">): Promise<string | null> {
  const url = healthzUrl(config);
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(HEALTHCHECK_TIMEOUT_MS), redirect: "manual" });
    await response.body?.cancel();
    return response.status === 200 ? null : `${url} answered ${response.status}`;
  } catch (error) {
    const reason = error instanceof Error && error.name === "TimeoutError" ? `no answer within ${HEALTHCHECK_TIMEOUT_MS / 1000} s` : error instanceof Error ? error.message : String(error);
    return `${url} did not answer: ${reason}`;
  }
}
