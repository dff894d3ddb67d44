import type { RateLimit } from "../common/config";
import { AppError } from "../common/errors";
import { FixedWindowCounter } from "./window";

export const MAX_RATE_LIMIT_KEYS = 100_000;

export class RateLimited extends AppError {
  constructor(headers: Record<string, string>) {
    super(429, "RATE_LIMITED", "Too many requests. Try again later.", undefined, headers);
  }
}

/**
 * RateLimiter allows `limit` requests per key in each window of `windowSeconds`, in memory,
 * keeping at most 100,000 keys. `take` counts a request and returns the headers every
 * limited response carries; over the limit it throws RateLimited (with `Retry-After`).
 */
export class RateLimiter {
  readonly counter: FixedWindowCounter;

  constructor(readonly rule: RateLimit, maxKeys = MAX_RATE_LIMIT_KEYS) {
    this.counter = new FixedWindowCounter(rule.windowSeconds * 1000, maxKeys);
  }

  take(key: string, now: number): Record<string, string> {
    const window = this.counter.hit(key, now);
    const reset = String(Math.max(1, Math.ceil((window.resetAt - now) / 1000)));
    const headers = {
      "RateLimit-Limit": String(this.rule.limit),
      "RateLimit-Remaining": String(Math.max(0, this.rule.limit - window.count)),
      "RateLimit-Reset": reset,
    };
    if (window.count > this.rule.limit) throw new RateLimited({ ...headers, "Retry-After": reset });
    return headers;
  }
}
