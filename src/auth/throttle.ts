import { FixedWindowCounter } from "../ratelimit/window";
import { logSafe } from "../request/log";

/** 10 password checks per key (an address, or an account for the current-password form) per 15 minutes. */
export const SIGN_IN_THROTTLE = { attempts: 10, windowMs: 15 * 60 * 1000 } as const;

/** 100 failed sign-ins per account per day, from any mix of addresses. */
export const ACCOUNT_THROTTLE = { attempts: 100, windowMs: 24 * 60 * 60 * 1000, maxKeys: 10_000 } as const;

/** A counted attempt: release it when it turned out not to be a failure. */
export interface Attempt {
  allowed: true;
  release(): void;
}

export interface Refusal {
  allowed: false;
  /** Seconds until the window ends, for `Retry-After`. */
  retryAfter: number;
}

/**
 * SignInThrottle counts password checks per key in fixed 15-minute windows. An attempt is
 * counted when it starts, before its password is verified (which waits for the hashing
 * queue), so that however many requests arrive at once, at most 10 per key are verified; one
 * that succeeds, or is never verified, is released again. Only failures use up the budget.
 */
export class SignInThrottle {
  private readonly counter: FixedWindowCounter;

  constructor(readonly attempts: number = SIGN_IN_THROTTLE.attempts, windowMs: number = SIGN_IN_THROTTLE.windowMs, maxKeys = 10_000) {
    this.counter = new FixedWindowCounter(windowMs, maxKeys);
  }

  /** begin counts an attempt for `key`, or refuses it when the key has used up its window. */
  begin(key: string, now: number): Attempt | Refusal {
    const window = this.counter.hit(key, now);
    if (window.count > this.attempts) {
      this.counter.release(key, window);
      return { allowed: false, retryAfter: Math.max(1, Math.ceil((window.resetAt - now) / 1000)) };
    }
    let released = false;
    return {
      allowed: true,
      release: () => {
        if (!released) this.counter.release(key, window);
        released = true;
      },
    };
  }
}

/** What the log writes in place of an email field that holds no well-formed address. */
const NOT_AN_EMAIL = "<not an email>";

/**
 * An address as people type one: a local part without spaces or controls, `@`, and a host name
 * of at least two dot-separated labels (letters, digits, inner hyphens) ending in letters.
 */
const WELL_FORMED_EMAIL = /^[\p{L}\p{N}.!#$%&'*+/=?^_`{|}~-]+@(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?\.)+\p{L}{2,}$/u;

/**
 * AccountThrottle counts sign-in attempts per account, from whatever addresses they come, in
 * fixed windows of a day, as SignInThrottle counts them per address: so that many addresses
 * do not multiply the guesses one account can take. An email with no account is counted the
 * same way (the answers do not tell which emails have an account), in a map of its own: a
 * flood of made-up emails can push out only other made-up emails' counts, never an account's.
 * Each map keeps at most 10,000 keys.
 */
export class AccountThrottle {
  private readonly accounts = new SignInThrottle(ACCOUNT_THROTTLE.attempts, ACCOUNT_THROTTLE.windowMs, ACCOUNT_THROTTLE.maxKeys);
  private readonly unknownEmails = new SignInThrottle(ACCOUNT_THROTTLE.attempts, ACCOUNT_THROTTLE.windowMs, ACCOUNT_THROTTLE.maxKeys);

  /** begin counts an attempt on the account of `user`, or on the typed email when no account has it. */
  begin(user: { id: number } | undefined, email: string, now: number): Attempt | Refusal {
    return user ? this.accounts.begin(String(user.id), now) : this.unknownEmails.begin(email.trim().toLowerCase(), now);
  }
}

/**
 * signInFailedLine is the one log line of a failed password check (sign-in, setup code,
 * current password), fixed so that fail2ban can match it: `sign-in failed for <email> from <ip>`.
 * It never holds a password, token, cookie or setup code: what was typed into the email field
 * is written only when it is a well-formed address (a password typed there by mistake is not),
 * else `<not an email>`.
 */
export function signInFailedLine(email: string, ip: string): string {
  const typed = email.trim();
  const shown = typed.length <= 254 && WELL_FORMED_EMAIL.test(typed) ? logSafe(typed) : NOT_AN_EMAIL;
  return `sign-in failed for ${shown} from ${logSafe(ip)}`;
}
