/**
 * A folder holding a smoke pipeline run, asked for the full one: the editor names what it holds
 * (from the same comparison as the CLI's refusal) and can replace it so the full run starts afresh.
 */
import * as assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  freeSubfolder,
  pipelineFolderConflict,
  pipelineRunEntries,
  removePipelineRun,
} from "../../../../../src/core/steps/pipeline/folder-conflict";
import { PIPELINE_MARKER } from "../../../../../src/core/steps/pipeline/pipeline-folder";
import { STATE_FILE } from "../../../../../src/core/steps/pipeline/plan";
import { settingsFor } from "../../../../../src/core/steps/pipeline/settings";
import { PIPELINE_ENVIRONMENTS } from "../../../../../src/core/envs/catalog";

describe("pipeline folder conflict: a smoke run, then the full one in the same folder", () => {
  let dir: string;
  const env = PIPELINE_ENVIRONMENTS[0];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-conflict-"));
    // What a smoke pipeline leaves (the state file as the pipeline writes it), and an editor's folder.
    writeFileSync(join(dir, PIPELINE_MARKER), "");
    writeFileSync(
      join(dir, STATE_FILE),
      JSON.stringify({ format: 1, settings: settingsFor("local", { env, size: "smoke" }), stages: {} }),
    );
    for (const sub of ["runs/base", "data", ".vscode"]) mkdirSync(join(dir, sub), { recursive: true });
    writeFileSync(join(dir, "report.md"), "# report\n");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("names the smoke run when the full one is asked for; the same settings continue (no conflict)", () => {
    assert.equal(pipelineFolderConflict(dir, "local", { env, size: "full" }), `a smoke pipeline run of ${env}`);
    assert.equal(pipelineFolderConflict(dir, "local", { env, size: "smoke" }), undefined);
    const empty = mkdtempSync(join(tmpdir(), "agent-lab-conflict-empty-"));
    assert.equal(pipelineFolderConflict(empty, "local", { env, size: "full" }), undefined);
    rmSync(empty, { recursive: true });
  });

  it("replacing removes the run's entries (listed first), keeps hidden ones; the full run is then free to start", () => {
    assert.deepEqual(pipelineRunEntries(dir), ["data", "pipeline.json", "report.md", "runs", PIPELINE_MARKER]);
    removePipelineRun(dir);
    assert.deepEqual(readdirSync(dir), [".vscode"]);
    assert.equal(pipelineFolderConflict(dir, "local", { env, size: "full" }), undefined);
  });

  it("a folder the pipeline did not make has nothing to replace", () => {
    rmSync(join(dir, PIPELINE_MARKER));
    assert.deepEqual(pipelineRunEntries(dir), []);
    removePipelineRun(dir);
    assert.ok(existsSync(join(dir, "report.md")));
  });

  it("a new subfolder's name is the first one free", () => {
    assert.equal(freeSubfolder(dir, "pipeline-full"), "pipeline-full");
    mkdirSync(join(dir, "pipeline-full"));
    assert.equal(freeSubfolder(dir, "pipeline-full"), "pipeline-full-2");
  });
});
