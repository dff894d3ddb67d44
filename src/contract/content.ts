/** A link's saved page content (`/api/v1/links/:id/content`); its limits are in content-limits.ts. */
import { Type, type Static } from "@sinclair/typebox";
import { Int, Timestamp } from "./common";

export const ContentSource = Type.Union([Type.Literal("browser"), Type.Literal("server")], {
  description: "browser: captured by the extension from the page as the user saw it; server: fetched by linkshelf. A browser capture is never replaced by a server fetch.",
});
export type ContentSource = Static<typeof ContentSource>;

const optionalText = (description: string) => Type.Optional(Type.Union([Type.String(), Type.Null()], { description }));

export const ContentBody = Type.Object({
  text: Type.String({ description: "The page's readable text. Kept up to 1 MiB of UTF-8 (cut at a character); the body may be up to 2 MiB." }),
  title: optionalText("At most 1000 characters; null or \"\" for none."),
  excerpt: optionalText("At most 2000 characters; null or \"\" for none."),
  byline: optionalText("The author, at most 500 characters; null or \"\" for none."),
  lang: optionalText("A language tag such as en or pt-BR; null or \"\" for none."),
});
export type ContentBody = Static<typeof ContentBody>;

export const ContentJson = Type.Object({
  linkId: Int(),
  title: Type.Union([Type.String(), Type.Null()]),
  text: Type.String(),
  excerpt: Type.Union([Type.String(), Type.Null()]),
  byline: Type.Union([Type.String(), Type.Null()]),
  lang: Type.Union([Type.String(), Type.Null()]),
  source: ContentSource,
  capturedAt: Timestamp,
});
export type ContentJson = Static<typeof ContentJson>;

export const ContentItemJson = Type.Object({ content: ContentJson });
export type ContentItemJson = Static<typeof ContentItemJson>;
export const ContentSavedJson = Type.Object({
  message: Type.String(),
  truncated: Type.Boolean({ description: "True when the text was longer than 1 MiB and only its first 1 MiB was kept." }),
});
export type ContentSavedJson = Static<typeof ContentSavedJson>;
