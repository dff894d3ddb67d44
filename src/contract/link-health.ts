/** Link health (`GET /api/v1/links/health`, `POST /api/v1/links/:id/check`): a link's state, its last checks, the list by state. */
import { Type, type Static } from "@sinclair/typebox";
import { LinkJson } from "./links";

export const HealthOutcome = Type.Union([
  Type.Literal("ok"), Type.Literal("moved"), Type.Literal("gone"), Type.Literal("failing"), Type.Literal("soft-404"), Type.Literal("unchecked"),
]);
export type HealthOutcome = Static<typeof HealthOutcome>;

export const HealthCheckJson = Type.Object({
  at: Type.String({ description: "When the check ran (ISO 8601 UTC)." }),
  status: Type.Union([Type.Number(), Type.Null()], { description: "The final HTTP status; null when no answer came." }),
  outcome: HealthOutcome,
  detail: Type.String({ description: "What happened: `HTTP 404`, `timeout`, `connection refused`, `private address`..." }),
});
export type HealthCheckJson = Static<typeof HealthCheckJson>;

export const HealthJson = Type.Object({
  state: HealthOutcome,
  broken: Type.Boolean({ description: "Failed LINKSHELF_LINK_CHECK_CONFIRM times in a row over long enough, and not ignored." }),
  ignored: Type.Boolean(),
  since: Type.Union([Type.String(), Type.Null()], { description: "The first of the failures in a row; null when the last check succeeded." }),
  lastCheckedAt: Type.Union([Type.String(), Type.Null()]),
  movedTo: Type.Union([Type.String(), Type.Null()], { description: "For `moved`: where the permanent redirects lead." }),
  checks: Type.Array(HealthCheckJson, { description: "The last five checks, newest first." }),
});
export type HealthJson = Static<typeof HealthJson>;

export const LinkHealthJson = Type.Object({ link: LinkJson, health: HealthJson });
export type LinkHealthJson = Static<typeof LinkHealthJson>;
export const HealthListJson = Type.Object({ links: Type.Array(LinkHealthJson) });
export type HealthListJson = Static<typeof HealthListJson>;
export const HealthItemJson = Type.Object({ health: HealthJson });
export type HealthItemJson = Static<typeof HealthItemJson>;

/** Which links `GET /api/v1/links/health` lists. */
export const HealthQuery = Type.Object({ state: Type.Union([Type.Literal("broken"), Type.Literal("moved"), Type.Literal("unchecked")]) });
export type HealthState = Static<typeof HealthQuery>["state"];
