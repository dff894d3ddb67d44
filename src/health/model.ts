/** A link's health as the API answers it, from its stored row. */
import type { HealthCheckJson, HealthJson } from "../contract/health";
import type { LinkHealthRow } from "../db/schema";
import { iso } from "../timestamps";

/** toHealthJson is a health row as the API answers it; an ignored link is never broken. */
export function toHealthJson(row: LinkHealthRow): HealthJson {
  return {
    state: row.state,
    broken: row.broken && !row.ignored,
    ignored: row.ignored,
    since: row.failingSince === null ? null : iso(row.failingSince),
    lastCheckedAt: row.checkedAt === null ? null : iso(row.checkedAt),
    movedTo: row.movedTo,
    checks: JSON.parse(row.checks) as HealthCheckJson[],
  };
}
