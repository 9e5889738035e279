/**
 * A GRPO training run folder as src/core/steps/train/grpo.ts writes it (metrics.jsonl, groups.jsonl,
 * episodes.jsonl with line-indexed groups, checkpoints.jsonl, manifest naming the tokenizer), the
 * workspace registry beside it, and a val eval run of one checkpoint — built from real HotpotQA
 * episodes run through the harness.
 */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ChatTokenizer } from "../../../../../src/core/base/chat/tokenizer";
import type { EpisodeRecord } from "../../../../../src/core/base/runs/run-files";
import { fakeManifest } from "../../base/runs/fakes";
import { realEpisode, type HotpotRow } from "./real-episodes";

export const G = 3;

const line = (file: string, row: unknown) => appendFileSync(file, JSON.stringify(row) + "\n");

export interface TrainingFixture {
  runsDir: string;
  runDir: string;
  /** episodes.jsonl lines, in order. */
  episodes: EpisodeRecord[];
}

/** Step 1: one mixed group and one all-wrong group; step 2: one all-correct group, then a mixed one. */
export async function writeTrainingRun(
  root: string,
  tok: ChatTokenizer,
  rows: HotpotRow[],
  question = (r: HotpotRow) => r.question,
): Promise<TrainingFixture> {
  const runsDir = join(root, "runs");
  const runDir = join(runsDir, "grpo-test");
  mkdirSync(runDir, { recursive: true });
  writeFileSync(join(runDir, "manifest.json"), JSON.stringify({ kind: "grpo", tokenizer: tok.name }));
  const episodes: EpisodeRecord[] = [];
  const plan: { step: number; row: HotpotRow; answers: string[] }[] = [
    { step: 1, row: rows[0], answers: [rows[0].answer, "nothing", rows[0].answer] },
    { step: 1, row: rows[1], answers: ["nope", "nothing", "no idea"] },
    { step: 2, row: rows[2], answers: [rows[2].answer, rows[2].answer, rows[2].answer] },
    { step: 2, row: rows[3], answers: ["wrong guess", rows[3].answer, "nothing"] },
  ];
  const groups: unknown[] = [];
  let g = 0;
  for (const p of plan) {
    const lines: number[] = [];
    const rewards: number[] = [];
    for (let k = 0; k < G; k++) {
      const e = await realEpisode(tok, { ...p.row, question: question(p.row) }, [
        `<search>${p.row.context[0][0]}</search>`,
        `<answer>${p.answers[k]}</answer>`,
      ]);
      const rec = {
        ...e,
        id: `${e.id}/s${p.step}/${k}`,
        question_id: e.id,
        step: p.step,
        group: g,
        sample: k,
      } as EpisodeRecord;
      lines.push(episodes.length);
      episodes.push(rec);
      rewards.push(rec.reward);
    }
    const mean = rewards.reduce((a, b) => a + b, 0) / G;
    const constant = rewards.every((r) => r === rewards[0]);
    groups.push({
      step: p.step,
      group: g,
      question_id: p.row.id,
      rewards,
      mean,
      advantages: constant ? null : rewards.map((r) => r - mean),
      skipped: constant,
      episodes: lines,
    });
    g++;
  }
  for (const e of episodes) line(join(runDir, "episodes.jsonl"), e);
  for (const gr of groups) line(join(runDir, "groups.jsonl"), gr);
  line(join(runDir, "metrics.jsonl"), {
    step: 1,
    reward: 0.333,
    skipped_groups: 0.5,
    searches: 1,
    answered: 1,
    budget_hit: 0,
    tokens: 300,
    usd: 0.01,
    optim_step: true,
    sampler: "s1",
    questions: [0, 2],
  });
  line(join(runDir, "metrics.jsonl"), {
    step: 2,
    reward: 1,
    skipped_groups: 1,
    searches: 1,
    answered: 1,
    budget_hit: 0,
    tokens: 310,
    usd: 0.02,
    optim_step: false,
    sampler: "s2",
    questions: [2, 3],
  });
  line(join(runDir, "checkpoints.jsonl"), {
    name: "grpo-test-s1",
    batch: 1,
    state_path: "tinker://x/weights/s1",
    sampler_path: "tinker://x/sampler_weights/s1",
  });
  line(join(runDir, "checkpoints.jsonl"), {
    name: "grpo-test-s2",
    batch: 2,
    state_path: "tinker://x/weights/s2",
    sampler_path: "tinker://x/sampler_weights/s2",
  });
  line(join(runsDir, "checkpoints.jsonl"), {
    name: "grpo-test-s2",
    sampler_path: "tinker://x/sampler_weights/s2",
    state_path: "tinker://x/weights/s2",
    base_model: "Qwen/Qwen3-4B",
    parent: null,
    data_hash: "train[0:3]",
    step: 2,
    run: "runs/grpo-test",
    kind: "grpo",
    created: "2026-11-29T00:00:00Z",
  });
  // A val eval of checkpoint s2 (by sampler path), and one of an unrelated checkpoint.
  const evalDir = join(runsDir, "val-grpo-s2");
  mkdirSync(evalDir);
  writeFileSync(
    join(evalDir, "manifest.json"),
    JSON.stringify({
      ...fakeManifest(),
      policy: { ...fakeManifest().policy, checkpoint: "tinker://x/sampler_weights/s2" },
    }),
  );
  for (const [i, f1] of [1, 0, 1, 0.5, 1, 0].entries())
    line(join(evalDir, "episodes.jsonl"), { id: `v${i}`, f1, em: f1 === 1 ? 1 : 0, searches: [], usd: 0 });
  const other = join(runsDir, "val-other");
  mkdirSync(other);
  writeFileSync(
    join(other, "manifest.json"),
    JSON.stringify({
      ...fakeManifest(),
      policy: { ...fakeManifest().policy, checkpoint: "tinker://y/sampler_weights/s9" },
    }),
  );
  line(join(other, "episodes.jsonl"), { id: "v0", f1: 0, em: 0, searches: [], usd: 0 });
  return { runsDir, runDir, episodes };
}
