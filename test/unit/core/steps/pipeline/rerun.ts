/**
 * What both offline pipelines' tests check after a full run: the same command again in the same
 * folder skips every stage (its outputs are complete) and reports the same means.
 */
import { strict as assert } from "node:assert";
import { runPipeline, type PipelineResult } from "../../../../../src/core/steps/pipeline/run-pipeline";
import type { PipelineSettings } from "../../../../../src/core/steps/pipeline/settings";
import { startLocalBackend } from "../../../../helpers/local-backend";

export async function assertRerunSkipsEveryStage(
  dir: string,
  settings: PipelineSettings,
  first: PipelineResult,
  stages: number,
): Promise<void> {
  const again: string[] = [];
  const r2 = await runPipeline({
    startLocalBackend,
    dir,
    backend: "local",
    settings,
    resamples: 200,
    log: (l) => again.push(l),
  });
  const skipped = again.filter((l) => /outputs complete, skipped/.test(l)).length;
  assert.equal(skipped, stages, again.join("\n"));
  assert.deepEqual(
    r2.report!.runs.map((x) => x.primary.mean),
    first.report!.runs.map((x) => x.primary.mean),
  );
}
