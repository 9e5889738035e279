/** `agent-lab score FILE [--per-line OUT]`, run in-process through the CLI module. */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../../../src/cli/score";
import { FileFormatError, UserError } from "../../../../../src/core/base/errors";
import { appendEpisode, readEpisodes } from "../../../../../src/core/base/runs/run-files";
import { requireSharedData } from "../../../../helpers/shared-data";
import { fakeRecord } from "../../base/runs/fakes";
import { tempDir, capturedOutput } from "../../base/data/helpers";
import { environmentMetrics } from "../../../../../src/core/envs/catalog";

const captured = async (fn: () => Promise<void>): Promise<string> => (await capturedOutput(fn)).out;

describe("score CLI", function () {
  let dir: ReturnType<typeof tempDir>;
  before(() => (dir = tempDir("score-cli")));
  after(() => dir.remove());

  it("prints mean EM/F1 and n, and --per-line keeps other fields and adds em and f1", async function () {
    // real dev questions with answers; predictions: exact, partial, wrong
    const file = requireSharedData(this, "hotpotqa", "hotpotqa_dev_questions_only_react.jsonl");
    const real = readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .slice(0, 3)
      .map((l) => JSON.parse(l));
    const rows = [
      { dev_index: real[0].dev_index, prediction: real[0].answer, answers: [real[0].answer] },
      {
        dev_index: real[1].dev_index,
        prediction: `the ${real[1].answer} and more words here`,
        answers: [real[1].answer],
      },
      { dev_index: real[2].dev_index, prediction: "Nothing like it", answers: [real[2].answer] },
    ];
    const input = join(dir.path, "preds.jsonl");
    writeFileSync(input, rows.map((r) => JSON.stringify(r)).join("\n") + "\n\n");
    const perLine = join(dir.path, "scored.jsonl");
    const out = await captured(() => run([input, "--per-line", perLine]));
    const scored = readFileSync(perLine, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    assert.equal(scored.length, 3);
    assert.deepEqual(
      scored.map((s) => s.dev_index),
      rows.map((r) => r.dev_index),
    );
    assert.deepEqual(
      scored.map((s) => s.em),
      [1, 0, 0],
    );
    assert.equal(scored[0].f1, 1);
    assert.ok(scored[1].f1 > 0 && scored[1].f1 < 1);
    const em = 1 / 3;
    const f1 = (1 + scored[1].f1 + scored[2].f1) / 3;
    assert.equal(out, `EM ${em.toFixed(3)}  F1 ${f1.toFixed(3)}  n 3`);
  });

  it("names file:line for a line without prediction or answers", async () => {
    const input = join(dir.path, "bad.jsonl");
    writeFileSync(input, `{"prediction": "x", "answers": ["x"]}\n\n{"prediction": "y"}\n`);
    await assert.rejects(
      run([input]),
      (e: unknown) => e instanceof FileFormatError && /bad\.jsonl:3: missing "answers"/.test(e.message),
    );
    writeFileSync(input, `{"answers": ["x"]}\n`);
    await assert.rejects(run([input]), /bad\.jsonl:1: missing "prediction"/);
    writeFileSync(input, `{"prediction": "x", "answers": ["x"]}\n{oops\n`);
    await assert.rejects(run([input]), /bad\.jsonl:2: not valid JSON/);
  });

  it("rescores a run folder in place through the eval module's rescoreRun", async () => {
    const runDir = join(dir.path, "run-folder");
    mkdirSync(runDir);
    // stale scores on disk, as an older scorer might have written them
    appendEpisode(
      runDir,
      fakeRecord("q1", { prediction: "President Richard Nixon", answers: ["Richard Nixon"], em: 1, f1: 1, reward: 1 }),
    );
    appendEpisode(runDir, fakeRecord("q2", { prediction: "Paris", answers: ["Paris"], em: 1, f1: 1, reward: 1 }));
    const out = await captured(() => run([runDir]));
    assert.equal(
      out,
      `EM 0.500  F1 ${((0.8 + 1) / 2).toFixed(3)}  n 2  (1 episode changed; episodes.jsonl and summary.json rewritten)`,
    );
    assert.deepEqual(
      readEpisodes(runDir, environmentMetrics).map((e) => e.metrics.em),
      [0, 1],
    );
    await assert.rejects(run([runDir, "--per-line", join(dir.path, "x.jsonl")]), /--per-line is for a JSONL file/);
  });

  it("says clearly when the file is missing or not given", async () => {
    await assert.rejects(
      run([join(dir.path, "nope.jsonl")]),
      (e: unknown) => e instanceof UserError && /no such file/.test(e.message),
    );
    await assert.rejects(run([]), /give one FILE .* or one RUN_DIR/);
  });
});
