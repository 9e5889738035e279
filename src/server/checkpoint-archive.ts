/**
 * A checkpoint's archive as the local backend serves it: an uncompressed tar of the checkpoint's
 * files (the format the official CLI downloads and extracts), built from its folder when asked.
 */
import { readFileSync, statSync } from "node:fs";
import { writeTar } from "../core/base/util/tar";
import type { CheckpointStore, TinkerPath } from "./checkpoint-store";
import { tinkerPath } from "./checkpoint-store";
import { HttpError } from "./http-error";

export function checkpointArchive(store: CheckpointStore, p: TinkerPath): Buffer {
  const files = store.checkpointFiles(p);
  if (!files) throw new HttpError(404, `no checkpoint at ${tinkerPath(p)}`);
  return writeTar(files.map((f) => ({ name: f.name, data: readFileSync(f.path), mtime: statSync(f.path).mtime })));
}
