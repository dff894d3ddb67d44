/** A link's page copy (`PUT /api/v1/links/:id/copy`): what storing one answers. */
import { Type, type Static } from "@sinclair/typebox";
import { CopySummaryJson } from "./links";

export const CopySavedJson = Type.Object({
  message: Type.String(),
  copy: CopySummaryJson,
});
export type CopySavedJson = Static<typeof CopySavedJson>;
