/** `GET /healthz`: the server is serving (the database is open and migrated). */
import { Type, type Static } from "@sinclair/typebox";

export const LivenessJson = Type.Object({ status: Type.Literal("ok") });
export type LivenessJson = Static<typeof LivenessJson>;
