import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, rmSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rescoreRun } from "../../../../../src/core/steps/eval/rescore";
import { appendEpisode, episodesPath, readEpisodes } from "../../../../../src/core/base/runs/run-files";
import { writeJsonAtomic } from "../../../../../src/core/base/util/atomic-write";
import { summarize } from "../../../../../src/core/base/runs/summary";
import { SCORER_VERSION } from "../../../../../src/core/envs/hotpotqa/score";
import { fakeManifest, fakeRecord } from "../../base/runs/fakes";

describe("eval/rescoreRun", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-rescore-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("recomputes EM/F1/reward from prediction and answers, rewrites episodes and summary, drops a torn tail", () => {
    // Stale scores on disk (as if written by an older scorer).
    appendEpisode(
      dir,
      fakeRecord("a", { prediction: "President Richard Nixon", answers: ["Richard Nixon"], em: 1, f1: 1, reward: 1 }),
    );
    appendEpisode(
      dir,
      fakeRecord("b", {
        prediction: "the Eiffel Tower",
        answers: ["Eiffel Tower"],
        em: 0,
        f1: 0,
        reward: 0,
        end: "budget",
      }),
    );
    appendFileSync(episodesPath(dir), '{"id":"c","torn');
    const eps = readEpisodes(dir);
    writeJsonAtomic(
      join(dir, "summary.json"),
      summarize(eps, { planned: 3, seconds: 9, status: "interrupted", split: "val", model: "m" }),
    );
    writeJsonAtomic(join(dir, "manifest.json"), { ...fakeManifest(), scorer_version: "old" });

    const r = rescoreRun(dir);
    assert.equal(r.n, 2);
    assert.equal(r.changed, 2);
    const [a, b] = readEpisodes(dir);
    assert.equal(a.metrics.em, 0);
    assert.ok(Math.abs(a.metrics.f1 - 0.8) < 1e-12);
    assert.ok(Math.abs(a.reward - 0.8) < 1e-12);
    assert.equal(b.metrics.em, 1);
    assert.equal(b.metrics.f1, 1);
    assert.equal(b.reward, 0, "no reward when the episode did not end with an answer");
    const s = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
    assert.ok(Math.abs(s.f1 - 0.9) < 1e-12);
    assert.equal(s.status, "interrupted");
    assert.equal(s.seconds, 9);
    assert.equal(JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")).scorer_version, SCORER_VERSION);
    assert.ok(readFileSync(episodesPath(dir), "utf8").endsWith("}\n"));
    assert.equal(rescoreRun(dir).changed, 0, "idempotent");
  });
});
