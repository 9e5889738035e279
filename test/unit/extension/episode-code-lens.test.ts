/**
 * The "Open trace" code lens finds each episode's id on the lines eval really writes (format 2
 * puts `"format": 2` before the id), without parsing the line.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../src/core/base/chat";
import { mergeConfig } from "../../../src/core/envs/config";
import { HeuristicPolicy } from "../../../src/core/envs/hotpotqa/heuristic-policy";
import { prepareSyntheticWorkspace } from "../../helpers/synthetic-workspace";
import { installFakeVscode } from "./fake-vscode";
import { scriptedEval } from "../../helpers/scripted-eval";

installFakeVscode();
// Required after the stand-in is installed.
/* eslint-disable @typescript-eslint/no-require-imports */
const { episodeIdOnLine } =
  require("../../../src/extension/panels/panel-host") as typeof import("../../../src/extension/panels/panel-host");
/* eslint-enable @typescript-eslint/no-require-imports */

describe("extension: the episodes.jsonl code lens", function () {
  this.timeout(120_000);
  let ws: string;
  before(async () => {
    ws = mkdtempSync(join(tmpdir(), "agent-lab-code-lens-"));
    await prepareSyntheticWorkspace(ws, { seed: 3, train: 20, dev: 520 }, { source: "code lens test" });
  });
  after(() => rmSync(ws, { recursive: true, force: true }));

  it("reads the id of every line an eval writes, and nothing from a line that is not an episode", async () => {
    const r = await scriptedEval({
      workspaceDir: ws,
      config: mergeConfig({ dataDir: "data", runsDir: "runs", concurrency: 1 }),
      name: "lens",
      split: "val",
      limit: 5,
      policy: new HeuristicPolicy(await offlineTokenizer("qwen3")),
    });
    const lines = readFileSync(join(r.runDir, "episodes.jsonl"), "utf8").split("\n").filter(Boolean);
    assert.equal(lines.length, 5);
    assert.deepEqual(
      lines.map((l) => episodeIdOnLine(l)),
      lines.map((l) => (JSON.parse(l) as { id: string }).id),
    );
    assert.equal(episodeIdOnLine('{"question": "no id first"}'), undefined);
    assert.equal(episodeIdOnLine(""), undefined);
  });
});
