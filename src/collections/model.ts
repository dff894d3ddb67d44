import { t } from "elysia";
import type { CollectionRow, UserRow } from "../db/schema";
import { iso } from "../ids";
import { LinkJson } from "../links/model";

export const Visibility = t.Union([t.Literal("PUBLIC"), t.Literal("PRIVATE")]);

/** POST and PUT take the same body; on PUT an omitted optional field keeps its stored value. */
export const CollectionBody = t.Object({
  name: t.String(),
  description: t.Optional(t.Union([t.String(), t.Null()])),
  visibility: Visibility,
  icon: t.Optional(t.String()),
});
export type CollectionInput = typeof CollectionBody.static;

export const AuthorJson = t.Object({ id: t.Number(), name: t.String(), email: t.String() });

export const CollectionJson = t.Object({
  id: t.Number(),
  name: t.String(),
  description: t.Union([t.String(), t.Null()]),
  visibility: Visibility,
  authorId: t.Number(),
  author: AuthorJson,
  links: t.Array(LinkJson),
  icon: t.String(),
  isDefault: t.Boolean(),
  createdAt: t.String(),
  updatedAt: t.String(),
  isOwner: t.Boolean(),
});
export type CollectionJson = typeof CollectionJson.static;

/** toCollectionJson shapes a collection the requesting user owns. */
export function toCollectionJson(row: CollectionRow, author: UserRow, links: LinkJson[]): CollectionJson {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    visibility: row.visibility,
    authorId: row.userId,
    author: { id: author.id, name: author.name, email: author.email },
    links,
    icon: row.icon,
    isDefault: row.isDefault,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    isOwner: row.userId === author.id,
  };
}
