/** The server's batch write as the sync sends it (the shapes are the server's, src/contract/batch.ts). */
export type Target = { id: number } | { ref: string };

export type BatchOperation =
  | { op: "createCollection"; ref: string; name: string; parent: Target }
  | { op: "updateCollection"; id: number; name?: string; parent?: Target }
  | { op: "deleteCollection"; id: number }
  | { op: "createLink"; ref: string; name: string; url: string; collections: Target[] }
  | { op: "updateLink"; id: number; name?: string; url?: string; add?: Target[]; remove?: number[] }
  | { op: "order"; collection: Target; order: { kind: "link" | "collection"; id?: number; ref?: string }[] };

export interface BatchBody {
  since?: string;
  operations: BatchOperation[];
}

export interface BatchJson {
  message: string;
  refs: Record<string, number>;
}
