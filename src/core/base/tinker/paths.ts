/** tinker://<training_run_id>/<kind>/<name> checkpoint paths (spec §2.4). */
import { UserError } from "../errors";

export type CheckpointKind = "weights" | "sampler_weights";

export interface TinkerPath {
  trainingRunId: string;
  kind: CheckpointKind;
  name: string;
  /** "<kind>/<name>", the checkpoint_id used in REST URLs. */
  checkpointId: string;
}

export function parseTinkerPath(path: string): TinkerPath {
  const problem = (why: string): UserError =>
    new UserError(
      `"${path}" is not a Tinker checkpoint path (${why}); expected tinker://<run id>/weights|sampler_weights/<name>`,
    );
  if (!path.startsWith("tinker://")) throw problem("it must start with tinker://");
  const parts = path.slice("tinker://".length).split("/");
  if (parts.length !== 3 || parts.some((p) => p.length === 0)) throw problem("it needs exactly three parts");
  const [trainingRunId, kind, name] = parts;
  if (kind !== "weights" && kind !== "sampler_weights") throw problem(`unknown kind "${kind}"`);
  return { trainingRunId, kind, name, checkpointId: `${kind}/${name}` };
}

export function tinkerPath(trainingRunId: string, kind: CheckpointKind, name: string): string {
  return `tinker://${trainingRunId}/${kind}/${name}`;
}
