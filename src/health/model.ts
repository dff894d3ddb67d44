/** The link checker's JSON: a link's health, its last checks, the list by state. */
import { t } from "elysia";
import type { LinkHealthRow } from "../db/schema";
import { LinkJson } from "../links/model";
import { iso } from "../timestamps";

export const HealthOutcome = t.Union([
  t.Literal("ok"), t.Literal("moved"), t.Literal("gone"), t.Literal("failing"), t.Literal("soft-404"), t.Literal("unchecked"),
]);

export const HealthCheckJson = t.Object({
  at: t.String({ description: "When the check ran (ISO 8601 UTC)." }),
  status: t.Union([t.Number(), t.Null()], { description: "The final HTTP status; null when no answer came." }),
  outcome: HealthOutcome,
  detail: t.String({ description: "What happened: `HTTP 404`, `timeout`, `connection refused`, `private address`..." }),
});

export const HealthJson = t.Object({
  state: HealthOutcome,
  broken: t.Boolean({ description: "Failed LINKSHELF_LINK_CHECK_CONFIRM times in a row over long enough, and not ignored." }),
  ignored: t.Boolean(),
  since: t.Union([t.String(), t.Null()], { description: "The first of the failures in a row; null when the last check succeeded." }),
  lastCheckedAt: t.Union([t.String(), t.Null()]),
  movedTo: t.Union([t.String(), t.Null()], { description: "For `moved`: where the permanent redirects lead." }),
  checks: t.Array(HealthCheckJson, { description: "The last five checks, newest first." }),
});

export const LinkHealthJson = t.Object({ link: LinkJson, health: HealthJson });
export const HealthListJson = t.Object({ links: t.Array(LinkHealthJson) });
export const HealthItemJson = t.Object({ health: HealthJson });

/** Which links `GET /api/v1/links/health` lists. */
export const HealthQuery = t.Object({ state: t.Union([t.Literal("broken"), t.Literal("moved"), t.Literal("unchecked")]) });

export type HealthOutcome = typeof HealthOutcome.static;
export type HealthCheck = typeof HealthCheckJson.static;
export type HealthJson = typeof HealthJson.static;
export type LinkHealth = typeof LinkHealthJson.static;
export type HealthState = typeof HealthQuery.static.state;

/** toHealthJson is a health row as the API answers it; an ignored link is never broken. */
export function toHealthJson(row: LinkHealthRow): HealthJson {
  return {
    state: row.state,
    broken: row.broken && !row.ignored,
    ignored: row.ignored,
    since: row.failingSince === null ? null : iso(row.failingSince),
    lastCheckedAt: row.checkedAt === null ? null : iso(row.checkedAt),
    movedTo: row.movedTo,
    checks: JSON.parse(row.checks) as HealthCheck[],
  };
}
