/**
 * The background workers that go out under the outbound policy (the page fetcher, the link
 * checker) share one way of doing it: the system resolver, the pinned connection and their own
 * limits unless a test gives others; a time limit and an abort of its own for every request,
 * so that stopping the server cuts each one short; and a stop that waits until the background
 * runs have settled, so that nothing writes after the server is gone.
 */
import { pinnedConnect, resolveSystem, type Connect, type OutboundPolicy, type Resolver } from "./fetch";

/** The way out that tests and the composition root may set; each defaults to the real thing. */
export interface OutboundOptions {
  /** Host name to addresses; default the system resolver. */
  resolve?: Resolver;
  /** Sends a request to a checked address; default Bun's fetch pinned to that address. */
  connect?: Connect;
}

/** What every request of one worker goes out with. */
export interface OutboundRules {
  allowPrivate: boolean;
  userAgent: string;
  /** The budget of one request, from the name lookup to the last byte read. */
  timeoutMillis: number;
}

/**
 * limitsOf is a worker's limits: each of `defaults`, unless the test or the composition root set
 * it in `options`.
 */
export function limitsOf<D extends Record<string, number>>(defaults: D, options: { [K in keyof D]?: number }): { [K in keyof D]: number } {
  const limits: Record<string, number> = {};
  for (const key of Object.keys(defaults)) limits[key] = options[key] ?? defaults[key]!;
  return limits as { [K in keyof D]: number };
}

/**
 * OutboundRuns sends a worker's requests and keeps its background runs: requests are aborted by
 * stop(), and stop() resolves once every background run has settled.
 */
export class OutboundRuns {
  private readonly resolve: Resolver;
  private readonly connect: Connect;
  /** Aborted by stop(): nothing starts any more. */
  private readonly stopping = new AbortController();
  /** One per request running (in a background run or asked for now), which stop() aborts. */
  private readonly requests = new Set<AbortController>();
  /** The background runs, which stop() waits for. */
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly rules: OutboundRules, options: OutboundOptions = {}) {
    this.resolve = options.resolve ?? resolveSystem;
    this.connect = options.connect ?? pinnedConnect();
  }

  /** Whether stop() was called: the worker starts nothing more. */
  get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  /** How many background runs have not settled yet. */
  get active(): number {
    return this.running.size;
  }

  /** send runs one request under the outbound policy, with its own time limit and abort (by stop). */
  async send<T>(request: (policy: OutboundPolicy) => Promise<T>): Promise<T> {
    const stop = new AbortController();
    this.requests.add(stop);
    try {
      return await request({
        resolve: this.resolve,
        connect: this.connect,
        allowPrivate: this.rules.allowPrivate,
        userAgent: this.rules.userAgent,
        signal: AbortSignal.any([AbortSignal.timeout(this.rules.timeoutMillis), stop.signal]),
      });
    } finally {
      this.requests.delete(stop);
    }
  }

  /**
   * background counts `run` among the runs stop() waits for until it settles; then `settled` is
   * called, when it no longer counts (so `active` there already leaves it out).
   */
  background(run: Promise<void>, settled: () => void): void {
    const counted = run.finally(() => {
      this.running.delete(counted);
      settled();
    });
    this.running.add(counted);
  }

  /**
   * stop starts nothing more and aborts every request running. What it returns settles once the
   * background runs of this moment have; the worker may drop what waits before awaiting it.
   */
  stop(): Promise<unknown> {
    this.stopping.abort();
    for (const request of this.requests) request.abort(new Error("the server is stopping"));
    return Promise.allSettled([...this.running]);
  }

  /** whenSettled resolves once no background run is left, counting those that start meanwhile. */
  async whenSettled(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
