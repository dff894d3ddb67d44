/**
 * Where the server's schemas and the types the browser extension compiles (src/api/types.ts) are
 * held together: each line asserts that a TypeBox schema's type is exactly the shared type, so
 * `tsc --noEmit` fails here when one of them changes without the other. Nothing imports this
 * module; the server's typecheck reads it like every file of src/.
 */
import type { CollectionBody, AuthorJson, CollectionCreatedJson, CollectionItemJson, CollectionJson, CollectionListJson, Visibility } from "../collections/model";
import type { BulkLinksBody, BulkLinksJson, CreateLinkBody, FavoritesJson, LinkCreatedJson, LinkItemJson, LinkJson, LinkPageJson, UpdateLinkBody } from "../links/model";
import type { ImportJson, ImportListJson, ImportUndoneJson } from "../imports/model";
import type { ContentBody, ContentItemJson, ContentJson, ContentSavedJson, ContentSource, SearchHitJson, SearchPageJson, SnippetJson } from "../search/model";
import type { HealthCheckJson, HealthItemJson, HealthJson, HealthListJson, HealthOutcome, LinkHealthJson } from "../health/model";
import type { Assert, SameType } from "./same-type";
import type { MessageJson } from "./writes";
import type * as Api from "./types";

type _SharedWithTheExtension = [
  Assert<SameType<typeof CreateLinkBody.static, Api.CreateLinkBody>>,
  Assert<SameType<typeof UpdateLinkBody.static, Api.UpdateLinkBody>>,
  Assert<SameType<typeof LinkJson.static, Api.LinkJson>>,
  Assert<SameType<typeof LinkCreatedJson.static, Api.LinkCreatedJson>>,
  Assert<SameType<typeof LinkItemJson.static, Api.LinkItemJson>>,
  Assert<SameType<typeof LinkPageJson.static, Api.LinkPageJson>>,
  Assert<SameType<typeof FavoritesJson.static, Api.FavoritesJson>>,
  Assert<SameType<typeof BulkLinksBody.static, Api.BulkLinksBody>>,
  Assert<SameType<typeof BulkLinksJson.static, Api.BulkLinksJson>>,
  Assert<SameType<typeof Visibility.static, Api.Visibility>>,
  Assert<SameType<typeof CollectionBody.static, Api.CollectionBody>>,
  Assert<SameType<typeof AuthorJson.static, Api.AuthorJson>>,
  Assert<SameType<typeof CollectionJson.static, Api.CollectionJson>>,
  Assert<SameType<typeof CollectionListJson.static, Api.CollectionListJson>>,
  Assert<SameType<typeof CollectionCreatedJson.static, Api.CollectionCreatedJson>>,
  Assert<SameType<typeof CollectionItemJson.static, Api.CollectionItemJson>>,
  Assert<SameType<typeof ContentSource.static, Api.ContentSource>>,
  Assert<SameType<typeof ContentBody.static, Api.ContentBody>>,
  Assert<SameType<typeof ContentJson.static, Api.ContentJson>>,
  Assert<SameType<typeof ContentItemJson.static, Api.ContentItemJson>>,
  Assert<SameType<typeof ContentSavedJson.static, Api.ContentSavedJson>>,
  Assert<SameType<typeof SnippetJson.static, Api.SnippetJson>>,
  Assert<SameType<typeof SearchHitJson.static, Api.SearchHitJson>>,
  Assert<SameType<typeof SearchPageJson.static, Api.SearchPageJson>>,
  Assert<SameType<typeof MessageJson.static, Api.MessageJson>>,
  Assert<SameType<typeof HealthOutcome.static, Api.HealthOutcome>>,
  Assert<SameType<typeof HealthCheckJson.static, Api.HealthCheckJson>>,
  Assert<SameType<typeof HealthJson.static, Api.HealthJson>>,
  Assert<SameType<typeof LinkHealthJson.static, Api.LinkHealthJson>>,
  Assert<SameType<typeof HealthListJson.static, Api.HealthListJson>>,
  Assert<SameType<typeof HealthItemJson.static, Api.HealthItemJson>>,
  Assert<SameType<typeof ImportJson.static, Api.ImportJson>>,
  Assert<SameType<typeof ImportListJson.static, Api.ImportListJson>>,
  Assert<SameType<typeof ImportUndoneJson.static, Api.ImportUndoneJson>>,
];
