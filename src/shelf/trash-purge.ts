/**
 * The trash's background purge: on start and then every hour, every user's trashed items older
 * than the server's LINKSHELF_TRASH_DAYS go for good (purgeTrash: small transactions, the event
 * loop running between them). A purge that fails is logged in one line and the next hour tries
 * again; the timer never keeps the process alive.
 */
import type { Db } from "../db/client";
import { purgeTrash } from "./trash";

/** How often the server purges the trash: every hour. */
export const PURGE_EVERY_MS = 3_600_000;

/** What a purge schedule is given; `clock` and `everyMs` are the process's own unless a test brings its own. */
export interface PurgeSchedule {
  db: Db;
  /** How many days a trashed item stays (0: everything in the trash goes at the next purge). */
  days: number;
  log: (line: string) => void;
  clock?: () => number;
  everyMs?: number;
}

/** A scheduled purge: `tick` purges once now (or waits for the purge under way) and says how many items went; `stop` calls off the timer and waits for a purge under way. */
export interface TrashPurge {
  tick(): Promise<number>;
  stop(): Promise<void>;
}

/** scheduleTrashPurge purges at once, then `everyMs` after each purge ends, until stopped. */
export function scheduleTrashPurge({ db, days, log, clock = Date.now, everyMs = PURGE_EVERY_MS }: PurgeSchedule): TrashPurge {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<number> | undefined;
  let stopped = false;

  const purge = async (): Promise<number> => {
    try {
      const purged = await purgeTrash(db, clock(), days);
      if (purged > 0) log(`linkshelf: purged ${purged} ${purged === 1 ? "item" : "items"} from the trash`);
      return purged;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      log(`linkshelf: purging the trash failed: ${reason.replace(/\s+/g, " ")}; next try in an hour`);
      return 0;
    } finally {
      running = undefined;
    }
  };
  const tick = () => (running ??= purge());
  const arm = () => {
    if (stopped) return;
    timer = setTimeout(() => void tick().then(arm), everyMs);
    timer.unref();
  };
  void tick().then(arm);
  return {
    tick,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
