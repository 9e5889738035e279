/** Rejection sampling on real HotpotQA records: the rule, the files, the lineage, cost and resume. */
import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../../../src/core/base/chat";
import { replyTokens } from "../../../../../src/core/base/chat/turns";
import type { ChatTokenizer } from "../../../../../src/core/base/chat/tokenizer";
import { type AgentLabConfig } from "../../../../../src/core/base/config";
import { mergeConfig } from "../../../../../src/core/envs/config";
import { UserError } from "../../../../../src/core/base/errors";
import { readLedger } from "../../../../../src/core/base/ledger";
import {
  accepted,
  chooseAttempt,
  collectSftData,
  DEFAULT_ACCEPTANCE,
  fileSha256,
  readAttempts,
  readSftRows,
  sftAdvice,
  sftPath,
  type SftDataManifest,
  type SftDataOptions,
} from "../../../../../src/core/steps/sft";
import { requireSharedData } from "../../../../helpers/shared-data";
import { PlanPolicy, readRows, writeRealDataDir, type HotpotRow } from "./real-hotpot";

describe("sft/chooseAttempt (the acceptance rule)", () => {
  const ep = (length: number, reward: number, searches: number) => ({
    tokens: new Array(length).fill(0),
    reward,
    searches: new Array(searches).fill("q"),
  });

  it("keeps the shortest attempt that searched with F1 >= min; ties go to the first", () => {
    const attempts = [ep(50, 1, 2), ep(30, 1, 1), ep(10, 1, 0), ep(20, 0.5, 1), ep(30, 0.9, 3)];
    assert.equal(chooseAttempt(attempts, DEFAULT_ACCEPTANCE), attempts[1]);
  });

  it("rejects a question whose only correct attempts never searched, or scored below min", () => {
    assert.equal(chooseAttempt([ep(10, 1, 0), ep(20, 0.79, 2)], DEFAULT_ACCEPTANCE), undefined);
    assert.ok(accepted(ep(20, 0.8, 1), DEFAULT_ACCEPTANCE), "min is inclusive");
  });
});

describe("sft/collectSftData on real HotpotQA records", function () {
  this.timeout(60_000);
  let root: string;
  let train: HotpotRow[];
  let dev: HotpotRow[];
  let tok: ChatTokenizer;

  before(async function () {
    train = readRows(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_train_partial.jsonl"));
    dev = readRows(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl"));
    tok = await offlineTokenizer("qwen3");
    root = mkdtempSync(join(tmpdir(), "agent-lab-sft-"));
    // A val question slipped into train under its own id, and a test question re-typed under a new id.
    const val0 = dev[0];
    const test0 = dev[100];
    await writeRealDataDir(join(root, "data"), train.slice(0, 20), dev, [
      { id: val0.id, question: val0.question, answers: [val0.answer], type: val0.type, level: val0.level },
      {
        id: "retyped-test-question",
        question: `  ${test0.question.toUpperCase().replace(/\?$/, "")} ?? `,
        answers: [test0.answer],
        type: test0.type,
        level: test0.level,
      },
    ]);
  });
  after(() => root && rmSync(root, { recursive: true, force: true }));

  const config = (over: Partial<AgentLabConfig> = {}) =>
    mergeConfig({ dataDir: "data", runsDir: "runs", concurrency: 8, ...over });
  const options = (policy: PlanPolicy, over: Partial<SftDataOptions> = {}): SftDataOptions => ({
    workspaceDir: root,
    config: config(),
    name: "sft",
    questions: 22,
    offset: 0,
    tries: 4,
    temperature: 0.8,
    minF1: 0.8,
    role: "self",
    backend: "scripted",
    policy,
    resume: false,
    command: ["agent-lab", "sft-data", "(test)"],
    ...over,
  });

  it("keeps the shortest searched correct attempt per question, never a val/test question, with a lineage manifest", async () => {
    const lines: string[] = [];
    const policy = new PlanPolicy(tok, [...train, ...dev], 7);
    const result = await collectSftData(options(policy, { name: "basic", log: (l) => lines.push(l) }));
    const runDir = result.runDir;
    const rows = readSftRows(sftPath(runDir));
    const attempts = readAttempts(runDir);

    // Held out: the val id and the re-typed test question were never tried.
    const excluded = result.manifest.held_out_excluded.map((h) => [h.id, h.split, h.by]);
    assert.deepEqual(excluded, [
      [dev[0].id, "val", "id"],
      ["retyped-test-question", "test", "text"],
    ]);
    assert.equal(attempts.length, 20);
    const heldIds = new Set([dev[0].id, "retyped-test-question"]);
    assert.ok(!rows.some((r) => heldIds.has(r.id)) && !attempts.some((a) => heldIds.has(a.id)));
    assert.ok(
      lines.some((l) => /left out 2 train question\(s\)/.test(l)),
      lines.join("\n"),
    );

    // The rule, checked against every try that attempts.jsonl recorded.
    let shorterMattered = false;
    for (const a of attempts) {
      assert.equal(a.tries.length, 4);
      const ok = a.tries.filter((t) => t.reward >= 0.8 && t.searches > 0);
      assert.equal(a.kept, ok.length > 0, a.id);
      assert.equal(
        a.solved,
        a.tries.some((t) => t.reward >= 0.8),
        a.id,
      );
      if (!a.kept) continue;
      const row = rows.find((r) => r.id === a.id)!;
      assert.equal(row.tokens.length, Math.min(...ok.map((t) => t.length)), `${a.id}: the shortest acceptable try`);
      assert.equal(a.tries[a.kept_try!].length, row.tokens.length);
      assert.ok(row.searches.length > 0 && row.reward >= 0.8);
      if (new Set(ok.map((t) => t.length)).size > 1) shorterMattered = true;
    }
    assert.ok(shorterMattered, "some question had acceptable tries of different lengths");
    assert.ok(
      attempts.some((a) => a.solved && !a.kept),
      "a question solved only without searching is not kept",
    );
    assert.ok(
      attempts.some((a) => !a.solved),
      "some question was not solved at all",
    );

    // Rows carry what training needs, aligned.
    for (const r of rows) {
      assert.equal(r.sampled.length, r.tokens.length);
      assert.equal(r.logprobs!.length, r.tokens.length);
      assert.deepEqual(r.source, { role: "self", kind: "scripted", model: "plan-policy" });
      assert.ok(r.prompt.length > 0 && r.answers.length === 1);
    }

    // Lineage manifest.
    const m = JSON.parse(readFileSync(join(runDir, "manifest.json"), "utf8"));
    assert.equal(m.status, "done");
    assert.deepEqual(m.counts, {
      questions: 20,
      tries: 4,
      episodes: 80,
      kept: rows.length,
      solved: attempts.filter((a) => a.solved).length,
    });
    assert.equal(m.output.sha256, fileSha256(sftPath(runDir)));
    assert.equal(m.output.rows, rows.length);
    assert.match(m.fingerprint.data.train.sha256, /^[0-9a-f]{64}$/);
    assert.match(m.fingerprint.data.val.sha256, /^[0-9a-f]{64}$/);
    assert.match(m.fingerprint.data.test.sha256, /^[0-9a-f]{64}$/);
    assert.match(m.fingerprint.system_prompt.sha256, /^[0-9a-f]{64}$/);
    assert.equal(m.fingerprint.acceptance.minF1, 0.8);
    assert.equal(m.fingerprint.source.kind, "scripted");
    assert.ok(Math.abs(m.avg_searches - rows.reduce((s, r) => s + r.searches.length, 0) / rows.length) < 1e-12);

    // The recipe's closing line, and a free source's tokens in the ledger at $0.
    const solvedPct = ((100 * m.counts.solved) / 20).toFixed(1);
    assert.equal(
      result.finalLine,
      `kept ${rows.length}/20 questions  |  solved@4 ${solvedPct}%  |  avg searches ${m.avg_searches.toFixed(2)}  |  $0.00`,
    );
    const ledger = readLedger(runDir);
    assert.equal(ledger.length, 20);
    assert.ok(ledger.every((l) => l.kind === "sample" && l.usd === 0 && l.tokens.prefill > 0));
    assert.ok(lines.some((l) => /^estimate \$0/.test(l)));
  });

  it("charges a paid source at the table's prices, prints the estimate, and stops at the budget cap; resume continues", async () => {
    const paid = { kind: "tinker", model: "Qwen/Qwen3.5-4B", logprobs: true };
    const lines: string[] = [];
    const cap = 0.004;
    const first = await collectSftData(
      options(new PlanPolicy(tok, [...train, ...dev], 11, paid), {
        name: "paid",
        config: config({ budgetUsd: cap, concurrency: 4 }),
        log: (l) => lines.push(l),
      }),
    );
    assert.match(lines[1] ?? lines[0], /estimate ≈ \$0\.06 for 20 questions × 4 tries .*budget cap \$0\.00/);
    assert.equal(first.manifest.status, "interrupted");
    assert.ok(first.budgetStop, "stopped by the cap");
    // Every question started only when the spend so far plus its estimate fit under the cap (one
    // question in flight at a time here); real episodes are longer than the recipe's typical one,
    // so the estimate follows the measured mean after the first question.
    const ledger = readLedger(first.runDir);
    for (const l of ledger) assert.ok(l.cumulative_usd - l.usd + l.estimate_usd! <= cap + 1e-12, JSON.stringify(l));
    // After the first question the estimate is the measured mean episode × tries, here exactly its cost.
    assert.ok(
      ledger.length >= 2 && Math.abs(ledger[1].estimate_usd! - ledger[0].usd) < 1e-12,
      "the estimate follows measured episodes",
    );
    assert.ok(first.manifest.counts.questions >= 1 && first.manifest.counts.questions < 20);
    assert.ok(first.manifest.usd > 0);
    const decided = readAttempts(first.runDir).map((a) => a.id);

    const again = await collectSftData(
      options(new PlanPolicy(tok, [...train, ...dev], 11, paid), {
        name: "paid",
        resume: true,
        config: config({ budgetUsd: 1, concurrency: 4 }),
      }),
    );
    assert.equal(again.manifest.status, "done");
    assert.equal(again.resumed, decided.length);
    assert.equal(again.ran, 20 - decided.length);
    const ids = readAttempts(again.runDir).map((a) => a.id);
    assert.equal(new Set(ids).size, 20, "every question once");
    assert.deepEqual(ids.slice(0, decided.length), decided);
    assert.ok(Math.abs(again.manifest.usd - readLedger(again.runDir).reduce((s, l) => s + l.usd, 0)) < 1e-12);
  });

  it("refuses an unpriced paid model before sampling, a run folder in use, and a resume with other settings", async () => {
    const unpriced = new PlanPolicy(tok, [...train, ...dev], 1, {
      kind: "tinker",
      model: "Some/Unpriced-Model",
      logprobs: true,
    });
    await assert.rejects(
      collectSftData(options(unpriced, { name: "unpriced" })),
      (e: Error) => e instanceof UserError && /no price for model "Some\/Unpriced-Model"/.test(e.message),
    );
    assert.equal(unpriced.plans.length, 0, "nothing sampled");

    await collectSftData(options(new PlanPolicy(tok, [...train, ...dev], 3), { name: "fp", questions: 3 }));
    await assert.rejects(
      collectSftData(options(new PlanPolicy(tok, [...train, ...dev], 3), { name: "fp", questions: 3 })),
      /already holds a run: pass --resume/,
    );
    await assert.rejects(
      collectSftData(
        options(new PlanPolicy(tok, [...train, ...dev], 3), { name: "fp", questions: 3, resume: true, minF1: 0.6 }),
      ),
      /cannot resume .*acceptance\.minF1: 0\.8 → 0\.6/,
    );
  });

  it("a run that keeps nothing still leaves an empty sft.jsonl whose hash the manifest records", async () => {
    const clueless = new PlanPolicy(tok, [...train, ...dev], 2);
    clueless.sample = async () => ({ tokens: replyTokens(tok, "I have no idea."), logprobs: null, stopReason: "stop" });
    const r = await collectSftData(options(clueless, { name: "none", questions: 3, tries: 2 }));
    assert.equal(readFileSync(sftPath(r.runDir), "utf8"), "");
    assert.equal(r.manifest.output.sha256, fileSha256(sftPath(r.runDir)));
    assert.deepEqual([r.manifest.counts.kept, r.manifest.counts.solved, r.manifest.counts.questions], [0, 0, 3]);
    assert.equal(r.finalLine, "kept 0/3 questions  |  solved@2 0.0%  |  avg searches 0.00  |  $0.00");
  });

  it("a kept row whose attempts line was lost (killed between the two writes) is not appended twice on resume", async () => {
    const first = await collectSftData(
      options(new PlanPolicy(tok, [...train, ...dev], 5), { name: "torn", questions: 8 }),
    );
    const rows = readSftRows(sftPath(first.runDir));
    assert.ok(rows.length > 0);
    const lostId = rows.at(-1)!.id;
    const attemptsFile = join(first.runDir, "attempts.jsonl");
    const kept = readFileSync(attemptsFile, "utf8")
      .split("\n")
      .filter((l) => l && JSON.parse(l).id !== lostId);
    writeFileSync(attemptsFile, kept.join("\n") + "\n" + '{"id":"half a li');
    const again = await collectSftData(
      options(new PlanPolicy(tok, [...train, ...dev], 5), { name: "torn", questions: 8, resume: true }),
    );
    assert.equal(again.ran, 0);
    assert.equal(readSftRows(sftPath(first.runDir)).length, rows.length);
    assert.equal(
      readFileSync(sftPath(first.runDir), "utf8").trim().split("\n").length,
      rows.length,
      "no duplicate line on disk",
    );
    assert.equal(again.manifest.counts.questions, 8);
  });
});

describe("sft/sftAdvice (the recipe's tip after collecting)", () => {
  const m = (questions: number, kept: number, environment?: { name: string; version: string }) =>
    ({
      fingerprint: environment ? { environment } : {},
      counts: { questions, kept, tries: 4, episodes: 4 * questions, solved: kept },
    }) as unknown as SftDataManifest;
  it("says when there are too few traces to train on, or the set is too easy, and nothing otherwise", () => {
    assert.match(sftAdvice(m(1500, 299))!, /only 299 traces kept: too few/);
    // Where harder questions are is the environment's (its info's harderQuestions): HotpotQA's, none for GSM8K.
    assert.equal(
      sftAdvice(m(1500, 1400)),
      "kept 93% of questions: the set is too easy for this model; take harder questions (HotpotQA's level column)",
    );
    assert.equal(
      sftAdvice(m(1500, 1400, { name: "gsm8k", version: "1" })),
      "kept 93% of questions: the set is too easy for this model; take harder questions",
    );
    assert.equal(sftAdvice(m(1500, 900)), undefined);
    assert.equal(sftAdvice(m(0, 0)), undefined);
  });
});
