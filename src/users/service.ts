import { and, eq, sql } from "drizzle-orm";
import { passwords as processPasswords, type Passwords } from "../common/passwords";
import { preparedQueries, type Db } from "../db/client";
import { sessions, users, type UserRow } from "../db/schema";
import { Conflict } from "../common/errors";
import { Rules } from "../common/rules";
import { insertInbox } from "../shelf/scope";

export const MIN_PASSWORD_LENGTH = 8;

export interface NewUser {
  email: string;
  name: string;
  password: string;
}

/** checkPassword enforces the password rule; its message is shown by the CLI and the pages. */
export function checkPassword(rules: Rules, password: string): void {
  if ([...password].length < MIN_PASSWORD_LENGTH) {
    rules.fail("/password", `Expected at least ${MIN_PASSWORD_LENGTH} characters`);
  }
}

/** How a service hashes a new password: through the app's queue, or patiently (the command line). */
export interface HashingOptions {
  passwords?: Passwords;
  /** Wait for the hashing queue however long it is, instead of PasswordsBusy when it is full. */
  patient?: boolean;
}

/**
 * createUser creates a user and their Inbox in one transaction. With `onlyFirst` (the
 * `/setup` page) it refuses once any user exists, checked inside the same transaction so two
 * simultaneous setups cannot both succeed. The password is hashed through the hashing queue.
 */
export async function createUser(db: Db, input: NewUser, now: number, options: { onlyFirst?: boolean } & HashingOptions = {}): Promise<UserRow> {
  const rules = new Rules();
  const email = rules.text("/email", input.email, 3, 254);
  // No control or bidirectional characters either: the email is shown on pages and in the CLI.
  if (!/^[^\s@\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]+@[^\s@\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]+$/u.test(email)) rules.fail("/email", "Expected an email address");
  const name = rules.name("/name", input.name, 1, 254);
  checkPassword(rules, input.password);
  rules.check();
  const passwordHash = await (options.passwords ?? processPasswords).hash(input.password, options);
  return db.transaction((tx) => {
    if (options.onlyFirst && tx.select({ id: users.id }).from(users).limit(1).get()) {
      throw new Conflict("SETUP_DONE", "linkshelf is set up already: sign in instead.");
    }
    if (tx.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = lower(${email})`).get()) {
      throw new Conflict("EMAIL_TAKEN", `A user with the email ${email} exists already.`);
    }
    const user = tx.insert(users).values({ email, name, passwordHash, createdAt: now }).returning().all()[0]!;
    insertInbox(db, user.id, now);
    return user;
  }, { behavior: "immediate" });
}

/** findUserByEmail looks a user up by email, ignoring case. */
export function findUserByEmail(db: Db, email: string): UserRow | undefined {
  return db.select().from(users).where(sql`lower(${users.email}) = lower(${email.trim()})`).get();
}

/** Every request with a token or a session reads its user by id: built once per database. */
const userQueries = preparedQueries((db) => ({
  byId: db.select().from(users).where(eq(users.id, sql.placeholder("id"))).prepare(),
}));

/** findUserById returns the user with that id. */
export function findUserById(db: Db, id: number): UserRow | undefined {
  return userQueries(db).byId.get({ id });
}

/** setPassword replaces a user's password and ends all of their sessions. */
export async function setPassword(db: Db, userId: number, password: string, options: HashingOptions = {}): Promise<void> {
  const rules = new Rules();
  checkPassword(rules, password);
  rules.check();
  const passwordHash = await (options.passwords ?? processPasswords).hash(password, options);
  db.transaction((tx) => {
    tx.update(users).set({ passwordHash }).where(eq(users.id, userId)).run();
    tx.delete(sessions).where(eq(sessions.userId, userId)).run();
  }, { behavior: "immediate" });
}

/**
 * replacePasswordHash stores a new hash of the same password (made with the current settings),
 * unless the password changed meanwhile. Sessions stay.
 */
export function replacePasswordHash(db: Db, userId: number, oldHash: string, newHash: string): void {
  db.update(users).set({ passwordHash: newHash }).where(and(eq(users.id, userId), eq(users.passwordHash, oldHash))).run();
}

/**
 * countUsers tells how many users exist (none: the server is in first-run setup). Plain SQL:
 * it runs at every start, where drizzle's query builder, still cold, took ~1 ms.
 */
export function countUsers(db: Db): number {
  return db.get<[number]>(sql`SELECT count(*) FROM ${users}`)[0];
}
