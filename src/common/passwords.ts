import { AppError } from "./errors";

/**
 * How passwords are hashed: argon2id with 19 MiB of memory and 2 passes (the lighter of the
 * two argon2id settings OWASP recommends). Each hash holds its memory while it runs, so the
 * memory cost times the number of hashes running at once is what a burst of sign-ins adds
 * to the server's resident memory.
 */
export const PASSWORD_HASH = { algorithm: "argon2id", memoryCost: 19_456, timeCost: 2 } as const;

/** What makes and checks password hashes; the server always uses `ARGON2ID`. */
export interface Hasher {
  hash(password: string): Promise<string>;
  verify(password: string, hash: string): Promise<boolean>;
}

/** ARGON2ID hashes with `PASSWORD_HASH` and verifies any hash Bun.password reads. */
export const ARGON2ID: Hasher = {
  hash: (password) => Bun.password.hash(password, PASSWORD_HASH),
  verify: (password, hash) => Bun.password.verify(password, hash),
};

/** At most this many hashes or verifications run at once in a process; this many more may wait. */
export const HASHING_LIMITS = { running: 2, waiting: 16 } as const;

/** Seconds a client is asked to wait when the queue is full: a verification takes a few tens of ms. */
const BUSY_RETRY_AFTER_SECONDS = 1;

/** Refused because the hashing queue is full; the forms show it as a page, with `Retry-After`. */
export class PasswordsBusy extends AppError {
  constructor() {
    super(503, "BUSY", "The server is busy checking other passwords. Try again in a moment.", undefined, {
      "Retry-After": String(BUSY_RETRY_AFTER_SECONDS),
    });
  }
}

export interface HashOptions {
  /**
   * Wait however long the queue is instead of being refused when it is full (the command line,
   * which hashes one password per process; the running cap still applies).
   */
  patient?: boolean;
}

const CURRENT_PREFIX = `$${PASSWORD_HASH.algorithm}$v=19$m=${PASSWORD_HASH.memoryCost},t=${PASSWORD_HASH.timeCost},p=1$`;

/** needsRehash: a stored hash made with other settings (an earlier release's 64 MiB) is replaced at the next sign-in. */
export function needsRehash(hash: string): boolean {
  return !hash.startsWith(CURRENT_PREFIX);
}

interface Waiter {
  memoryKiB: number;
  start(): void;
}

/**
 * memoryOf reads the memory cost (KiB) an argon2 hash was made with, from its `m=` parameter;
 * a hash of another kind (bcrypt) counts as the current setting.
 */
export function memoryOf(hash: string): number {
  const match = /^\$argon2(?:id|i|d)\$v=\d+\$m=(\d+),/.exec(hash);
  return match ? Number(match[1]) : PASSWORD_HASH.memoryCost;
}

/**
 * Passwords runs every password hash and verification of the process through one small queue:
 * at most `running` at once, within a memory budget of `running` hashes at the current cost
 * (so a stored hash made with more memory, by an earlier release, is verified alone), and at
 * most `waiting` more in line, first come first served. Beyond that `hash` and `verify` throw
 * PasswordsBusy at once, so a burst of sign-ins costs a bounded amount of memory and time.
 */
export class Passwords {
  private active = 0;
  private activeMemoryKiB = 0;
  private readonly queue: Waiter[] = [];
  private readonly budgetKiB: number;

  constructor(readonly limits: { running: number; waiting: number } = HASHING_LIMITS, private readonly hasher: Hasher = ARGON2ID) {
    this.budgetKiB = limits.running * PASSWORD_HASH.memoryCost;
  }

  /** How many jobs run and wait right now. */
  get load(): { running: number; waiting: number } {
    return { running: this.active, waiting: this.queue.length };
  }

  /** hash makes a new password hash with the current setting. */
  hash(password: string, options: HashOptions = {}): Promise<string> {
    return this.run(PASSWORD_HASH.memoryCost, () => this.hasher.hash(password), options);
  }

  /** verify tells whether a password matches a stored hash. */
  verify(password: string, hash: string, options: HashOptions = {}): Promise<boolean> {
    return this.run(memoryOf(hash), () => this.hasher.verify(password, hash), options);
  }

  /**
   * run starts `job` once a slot and its memory are free. It throws PasswordsBusy, without
   * waiting, when the line is full (unless `patient`). Exported for the queue's own tests.
   */
  async run<T>(memoryKiB: number, job: () => Promise<T>, options: HashOptions = {}): Promise<T> {
    if (this.queue.length > 0 || !this.fits(memoryKiB)) {
      if (!options.patient && this.queue.length >= this.limits.waiting) throw new PasswordsBusy();
      await new Promise<void>((start) => this.queue.push({ memoryKiB, start }));
    } else {
      this.claim(memoryKiB);
    }
    try {
      return await job();
    } finally {
      this.active--;
      this.activeMemoryKiB -= memoryKiB;
      this.startWaiting();
    }
  }

  /** A job fits when a slot is free and its memory is within the budget; alone, any job fits. */
  private fits(memoryKiB: number): boolean {
    if (this.active === 0) return true;
    return this.active < this.limits.running && this.activeMemoryKiB + memoryKiB <= this.budgetKiB;
  }

  private claim(memoryKiB: number): void {
    this.active++;
    this.activeMemoryKiB += memoryKiB;
  }

  /** Starts waiting jobs in order while the first in line fits. */
  private startWaiting(): void {
    while (this.queue.length > 0 && this.fits(this.queue[0]!.memoryKiB)) {
      const next = this.queue.shift()!;
      this.claim(next.memoryKiB);
      next.start();
    }
  }
}

/** The process's one queue: every hash and verification of the server and the command line. */
export const passwords = new Passwords();
