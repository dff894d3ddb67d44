import { t } from "elysia";
import type { LinkRow } from "../db/schema";
import { iso } from "../ids";

/** Elysia's t.Integer also accepts numeric strings; ids in a body must be JSON numbers. */
export const IdNumber = t.Number({ multipleOf: 1 });

const linkFields = {
  name: t.String(),
  description: t.Optional(t.String()),
  url: t.String(),
  favorite: t.Boolean(),
};

export const CreateLinkBody = t.Object({ ...linkFields, collectionIds: t.Optional(t.Array(IdNumber)) });
export const UpdateLinkBody = t.Object({ ...linkFields, collectionIds: t.Array(IdNumber) });

/** `GET /api/v1/links` query: types only (Elysia converts the strings); the ranges are searchLinks' rules. */
export const LinkSearchQuery = t.Object({
  q: t.Optional(t.String()),
  collectionId: t.Optional(t.Integer()),
  favorite: t.Optional(t.Boolean()),
  cursor: t.Optional(t.String()),
  limit: t.Optional(t.Integer()),
});

export type CreateLinkInput = typeof CreateLinkBody.static;
export type UpdateLinkInput = typeof UpdateLinkBody.static;

export const LinkJson = t.Object({
  id: t.Number(),
  name: t.String(),
  description: t.String(),
  url: t.String(),
  favorite: t.Boolean(),
  clicks: t.Number(),
  lastClickedAt: t.Union([t.String(), t.Null()]),
  collectionIds: t.Array(t.Number()),
  authorId: t.Number(),
  createdAt: t.String(),
  updatedAt: t.String(),
});
export type LinkJson = typeof LinkJson.static;

/** toLinkJson shapes a stored link for clients; `collectionIds` must already be sorted. */
export function toLinkJson(row: LinkRow, collectionIds: number[]): LinkJson {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    url: row.url,
    favorite: row.favorite,
    clicks: row.clicks,
    lastClickedAt: row.lastClickedAt === null ? null : iso(row.lastClickedAt),
    collectionIds,
    authorId: row.userId,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}
