/**
 * Moving the HotpotQA agent onto the environment interface changed no byte: the same seeded,
 * greedy evals (and an sft-data run) write the same episodes.jsonl / sft.jsonl lines and scores as
 * the code before the move. `golden.json` holds the sha256 of every line and the summary numbers,
 * recorded by this test on the pre-environment code (`AGENT_LAB_WRITE_GOLDEN=1` rewrites it; only
 * do that for a change that is meant to alter HotpotQA episodes, and bump HARNESS_VERSION then).
 * Hashes, not the lines: the real records stay in ../shared/data.
 */
import { strict as assert } from "node:assert";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer, type ChatTokenizer } from "../../../../../src/core/base/chat";
import { mergeConfig } from "../../../../../src/core/envs/config";
import { HeuristicPolicy } from "../../../../../src/core/envs/hotpotqa/heuristic-policy";
import { DEMO_SEED } from "../../../../../src/core/steps/demo/run-demo";
import { evalSplit } from "../../../../../src/core/steps/eval/eval-split";
import type { Policy } from "../../../../../src/core/harness/policy";
import {
  ScriptedPolicy,
  type ScriptContext,
  type ScriptedReply,
} from "../../../../../src/core/harness/policies/scripted";
import { collectSftData } from "../../../../../src/core/steps/sft";
import { EPISODE_FORMAT } from "../../../../../src/core/base/runs/episode-v1";
import { SUMMARY_FORMAT } from "../../../../../src/core/base/runs/summary";
import { sharedDataPath } from "../../../../helpers/shared-data";
import { PlanPolicy, readRows, writeRealDataDir } from "../../steps/sft/real-hotpot";
import { prepareSyntheticWorkspace } from "../../../../helpers/synthetic-workspace";

const GOLDEN = join(__dirname, "golden.json");
const WRITE = process.env.AGENT_LAB_WRITE_GOLDEN === "1";

interface Recorded {
  lines: string[];
  scores: Record<string, unknown>;
}

const sha = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 16);
const lineHashes = (file: string) => readFileSync(file, "utf8").split("\n").filter(Boolean).map(sha);

/**
 * An episodes.jsonl line of the current record format written back in format 1's exact layout: no
 * `format`, and `metrics: {em, f1}` as the two top-level slots `em`, `f1` where `metrics` stands
 * (HotpotQA's declared metrics are those two, in that order). The golden hashes are of v1 lines, so
 * equal hashes prove the move to declared metrics changed no number, no key order, no byte else.
 */
function asV1Line(line: string): string {
  const row = JSON.parse(line) as Record<string, unknown>;
  if (!("format" in row)) return line;
  assert.equal(row.format, EPISODE_FORMAT, "episodes are written in the current record format");
  const v1: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (k === "format") continue;
    if (k === "metrics") {
      const m = v as Record<string, number>;
      assert.deepEqual(Object.keys(m), ["em", "f1"], "HotpotQA records carry exactly its declared metrics");
      v1.em = m.em;
      v1.f1 = m.f1;
    } else v1[k] = v;
  }
  const text = JSON.stringify(v1);
  // The line is exactly its JSON (so re-serialising the rest changed nothing but the two fields).
  assert.equal(line, JSON.stringify(row), "an episode line is its record's JSON.stringify");
  return text;
}
const episodeHashes = (file: string) => readFileSync(file, "utf8").split("\n").filter(Boolean).map(asV1Line).map(sha);

/** The summary's numbers under the golden file's keys (a summary of format 1 had `em` and `f1` at the top). */
function scoresOf(runDir: string): Record<string, unknown> {
  const s = JSON.parse(readFileSync(join(runDir, "summary.json"), "utf8")) as Record<string, unknown>;
  assert.equal(s.format, SUMMARY_FORMAT, "summaries are written in the current format");
  const m = s.metrics as Record<string, number>;
  assert.deepEqual(Object.keys(m), ["em", "f1"], "HotpotQA summaries carry exactly its declared metrics");
  return { n: s.n, em: m.em, f1: m.f1, searches_per_q: s.searches_per_q, answered: s.answered, ends: s.ends };
}

/** Every end rule and edge the harness has: empty query, budget, length, no action, a missing end token, no logprobs. */
function edgeReplies(ctx: ScriptContext): ScriptedReply {
  const question = ctx.promptText.split("<|im_start|>user\n")[1].split("<|im_end|>")[0];
  const n = [...question].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % 6;
  if (n === 0) return ctx.turn < 9 ? `<search>${ctx.turn === 1 ? "" : "town"}</search>` : "<answer>x</answer>";
  if (n === 1) return { text: "I will think for a very long time about this and then", stopReason: "length" };
  if (n === 2) return "I do not know.";
  if (n === 3)
    return ctx.turn === 0 ? { text: "<search>company founded</search>", omitEndToken: true } : "<answer>Kel</answer>";
  if (n === 4) return { text: "<answer>a<answer>b</answer>", noLogprobs: true };
  return ctx.turn === 0 ? "<search>born</search> <answer>early</answer> trailing" : "<answer>never</answer>";
}

describe("envs/hotpotqa: the agent on the environment interface is byte-identical to before", function () {
  this.timeout(120_000);
  let root: string;
  let tok: ChatTokenizer;
  const got: Record<string, Recorded> = {};
  const golden: Record<string, Recorded> = existsSync(GOLDEN) ? JSON.parse(readFileSync(GOLDEN, "utf8")) : {};

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "agent-lab-golden-"));
    tok = await offlineTokenizer("qwen3");
  });
  after(() => {
    if (WRITE) writeFileSync(GOLDEN, JSON.stringify({ ...golden, ...got }, null, 1) + "\n");
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const check = (key: string, file: string, runDir: string) => {
    got[key] = { lines: episodeHashes(file), scores: scoresOf(runDir) };
    if (WRITE) return;
    const want = golden[key];
    assert.ok(
      want,
      `golden.json has no "${key}": record it with AGENT_LAB_WRITE_GOLDEN=1 on the code before the change`,
    );
    const firstDiff = want.lines.findIndex((h, i) => got[key].lines[i] !== h);
    assert.equal(firstDiff, -1, `${key}: line ${firstDiff + 1} differs from the recorded bytes`);
    assert.equal(got[key].lines.length, want.lines.length, `${key}: line count`);
    assert.deepEqual(got[key].scores, want.scores, `${key}: scores`);
  };

  const evalInto = async (
    ws: string,
    name: string,
    policy: Policy,
    over: { closedBook?: boolean; limit?: number; split?: "val" | "train" } = {},
  ) => {
    const r = await evalSplit({
      workspaceDir: ws,
      config: mergeConfig({ dataDir: "data", runsDir: "runs", concurrency: 1, maxSearches: 3 }),
      name,
      split: over.split ?? "val",
      closedBook: over.closedBook ?? false,
      limit: over.limit,
      resume: false,
      temperature: 0,
      backend: "scripted",
      policy,
      command: ["test"],
    });
    return r.runDir;
  };

  describe("on the synthetic world", () => {
    let ws: string;
    before(async () => {
      ws = join(root, "synthetic");
      await prepareSyntheticWorkspace(ws, { seed: DEMO_SEED, train: 40, dev: 560 }, { source: "golden test" });
    });

    it("the heuristic reader with search", async () => {
      const run = await evalInto(ws, "heuristic", new HeuristicPolicy(tok), { limit: 40 });
      check("synthetic-heuristic", join(run, "episodes.jsonl"), run);
    });

    it("the heuristic reader closed-book", async () => {
      const run = await evalInto(ws, "closed", new HeuristicPolicy(tok), { limit: 20, closedBook: true });
      check("synthetic-closed-book", join(run, "episodes.jsonl"), run);
    });

    it("scripted replies through every end rule", async () => {
      const run = await evalInto(ws, "edges", new ScriptedPolicy(tok, edgeReplies), { limit: 40 });
      check("synthetic-edges", join(run, "episodes.jsonl"), run);
    });
  });

  describe("on the real shared HotpotQA records", () => {
    let ws: string;
    let rows: ReturnType<typeof readRows>;
    before(async function () {
      const trainFile = sharedDataPath("hotpotqa", "hotpotqa_distractor_train_partial.jsonl");
      const devFile = sharedDataPath("hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
      if (!trainFile || !devFile) {
        console.log("      skipped: ../shared/data/hotpotqa is not present (real-data test)");
        return this.skip();
      }
      ws = join(root, "real");
      const train = readRows(trainFile);
      const dev = readRows(devFile);
      rows = [...train, ...dev];
      await writeRealDataDir(join(ws, "data"), train.slice(0, 30), dev);
    });

    it("a seeded plan policy on val", async () => {
      const run = await evalInto(ws, "plan", new PlanPolicy(tok, rows, 11), { limit: 40 });
      check("real-plan-eval", join(run, "episodes.jsonl"), run);
    });

    it("the heuristic reader on val", async () => {
      const run = await evalInto(ws, "heuristic", new HeuristicPolicy(tok), { limit: 30 });
      check("real-heuristic-eval", join(run, "episodes.jsonl"), run);
    });

    it("sft-data (rejection sampling) keeps the same rows", async () => {
      const r = await collectSftData({
        workspaceDir: ws,
        config: mergeConfig({ dataDir: "data", runsDir: "runs", concurrency: 2 }),
        name: "sft",
        questions: 30,
        offset: 0,
        tries: 2,
        temperature: 0.8,
        minF1: 0.8,
        role: "self",
        backend: "scripted",
        policy: new PlanPolicy(tok, rows, 5),
        resume: false,
        command: ["test"],
      });
      const m = r.manifest;
      got["real-sft-data"] = {
        lines: [...lineHashes(join(r.runDir, "sft.jsonl")), ...lineHashes(join(r.runDir, "attempts.jsonl"))],
        scores: { counts: m.counts, solved_at_n: m.solved_at_n, avg_searches: m.avg_searches, sha256: m.output.sha256 },
      };
      if (WRITE) return;
      assert.deepEqual(got["real-sft-data"], golden["real-sft-data"]);
    });
  });
});
