/** Reads one question's episode from two runs and aligns them turn by turn (the Compare panel's pair view). */
import { FileFormatError } from "../../base/errors";
import { episodesPath, readRun } from "../../base/runs/run-files";
import { runEnvironmentName } from "../../envs/manifest-environment";
import { tokenizerForRun } from "../../base/runs/run-tokenizer";
import { pairView, type PairView } from "./pair-view";
import { buildTraceView } from "./trace-view";
import { runViewSpec } from "./run-view";
import { environmentMetrics } from "../../envs/catalog";

export async function loadPair(
  dirs: readonly [string, string],
  questionId: string,
  names: [string, string],
): Promise<PairView> {
  const views = await Promise.all(
    dirs.map(async (dir) => {
      const files = readRun(dir, environmentMetrics);
      const record = files.episodes.find((e) => e.id === questionId);
      if (!record)
        throw new FileFormatError(
          episodesPath(dir),
          undefined,
          `no episode for question ${JSON.stringify(questionId)}`,
        );
      const { tokenizer, problem } = await tokenizerForRun(files.manifest?.tokenizer);
      // The run's environment's metrics (another environment's record has no v1 slots) and controls.
      return buildTraceView(record, tokenizer, { drift: false, view: runViewSpec(runEnvironmentName(dir)) }, problem);
    }),
  );
  return pairView(views[0], views[1], names);
}
