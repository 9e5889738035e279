/**
 * The drift check against what the harness really writes: fresh evals through the real eval step
 * (scripted policies, the offline Qwen3 vocabulary) on every registered environment — GSM8K with
 * its few-shot turn, HotpotQA with multi-turn search results — under the Qwen3 template and the
 * real Qwen3.5 template text (../shared/data/qwen3_5, when present), with thinking off and on. Every
 * token the harness inserted is what the template renders, so a fresh run shows no template drift;
 * a corrupted inserted token, the old check's expectation (an empty think block before the few-shot
 * answer) and a run checked with the wrong thinking setting all do.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EMPTY_THINK, type ChatTokenizer } from "../../../../../src/core/base/chat";
import { offlineTokenizer } from "../../../../../src/core/base/chat/offline-tokenizer";
import { mergeConfig } from "../../../../../src/core/envs/config";
import { DRIFT_FIELDS } from "../../../../../src/core/base/runs/episode-record";
import { readRun, type EpisodeRecord } from "../../../../../src/core/base/runs/run-files";
import { GSM8K } from "../../../../../src/core/envs/gsm8k/environment";
import { FEWSHOT_PREFIX } from "../../../../../src/core/envs/gsm8k/prompt";
import { HeuristicPolicy } from "../../../../../src/core/envs/hotpotqa/heuristic-policy";
import { environmentNames } from "../../../../../src/core/envs/registry";
import { ScriptedPolicy, type ScriptedReply } from "../../../../../src/core/harness/policies/scripted";
import type { Policy } from "../../../../../src/core/harness/policy";
import { DEMO_SEED } from "../../../../../src/core/steps/demo/run-demo";
import {
  checkDrift,
  checkEpisodeDrift,
  countDrift,
  countEpisodeDrift,
  emptyDriftCounts,
  driftSettings,
  driftVerdict,
  runDriftCounts,
} from "../../../../../src/core/views/trace/drift";
import { prepareSyntheticWorkspace } from "../../../../helpers/synthetic-workspace";
import { sharedDataPath } from "../../../../helpers/shared-data";
import { behaviourOf, prepareFixtureTwin, questionOf, replyFor } from "../../envs/gsm8k/fixture";
import { readRows, writeRealDataDir } from "../../steps/sft/real-hotpot";
import { scriptedEval } from "../../../../helpers/scripted-eval";
import { environmentMetrics } from "../../../../../src/core/envs/catalog";

/** A reply that thinks first, written after whatever the generation prompt already opened. */
function thinking(promptText: string, reply: ScriptedReply): ScriptedReply {
  const head = `${promptText.endsWith("<think>\n") ? "" : "<think>\n"}Let me work it out.\n</think>\n\n`;
  return typeof reply === "string" ? head + reply : { ...reply, text: head + reply.text };
}

interface Template {
  label: string;
  load(): Promise<ChatTokenizer>;
}

const TEMPLATES: Template[] = [
  { label: "Qwen3 template", load: () => offlineTokenizer("qwen3") },
  {
    label: "Qwen3.5 template",
    load: () => offlineTokenizer("qwen3.5", { templateFile: sharedDataPath("qwen3_5", "qwen3_5_chat_template.jinja") }),
  },
];

describe("trace: the drift check renders with the template, on every environment's real episodes", function () {
  this.timeout(300_000);
  let root: string;
  const gsmWorkspaces: { label: string; ws: string }[] = [];
  let hotpotWs: string;
  let realHotpotWs: string | undefined;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "agent-lab-drift-parity-"));
    const fixture = join(root, "gsm8k-fixture");
    mkdirSync(fixture);
    writeFileSync(join(fixture, "agent-lab.json"), JSON.stringify({ env: "gsm8k" }));
    await prepareFixtureTwin(join(fixture, "data"), join(root, "raw-gsm8k"));
    gsmWorkspaces.push({ label: "fixture records", ws: fixture });
    const train = sharedDataPath("gsm8k", "train.jsonl");
    const test = sharedDataPath("gsm8k", "test.jsonl");
    if (train && test) {
      const real = join(root, "gsm8k-real");
      mkdirSync(real);
      await GSM8K.data.prepare({
        outDir: GSM8K.data.dir(join(real, "data")),
        train: [train],
        test: [test],
        log: () => undefined,
      });
      gsmWorkspaces.push({ label: "real records", ws: real });
    } else console.log("      note: ../shared/data/gsm8k is not present; GSM8K runs on the fixture twin only");
    hotpotWs = join(root, "hotpot-synthetic");
    await prepareSyntheticWorkspace(hotpotWs, { seed: DEMO_SEED, train: 40, dev: 40 }, { source: "drift test" });
    const hotTrain = sharedDataPath("hotpotqa", "hotpotqa_distractor_train_partial.jsonl");
    const hotDev = sharedDataPath("hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    if (hotTrain && hotDev) {
      realHotpotWs = join(root, "hotpot-real");
      await writeRealDataDir(join(realHotpotWs, "data"), readRows(hotTrain).slice(0, 20), readRows(hotDev));
    } else console.log("      note: ../shared/data/hotpotqa is not present; HotpotQA runs on the synthetic world only");
  });
  after(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("covers every registered environment", () => {
    assert.deepEqual(environmentNames().sort(), ["gsm8k", "hotpotqa"]);
  });

  const evalRun = async (
    ws: string,
    o: { env: string; name: string; policy: Policy; thinking: boolean; limit: number; split?: "train" | "val" },
  ) => {
    const r = await scriptedEval({
      workspaceDir: ws,
      env: o.env,
      config: mergeConfig({ dataDir: "data", runsDir: "runs", concurrency: 4, maxTokens: 64, thinking: o.thinking }),
      name: o.name,
      split: o.split ?? "val",
      limit: o.limit,
      policy: o.policy,
    });
    return readRun(r.runDir, environmentMetrics, DRIFT_FIELDS);
  };

  /** Every episode checked with its run's settings: no template drift, nothing unrenderable. */
  const assertNoDrift = (tok: ChatTokenizer, run: ReturnType<typeof readRun>) => {
    const counts = runDriftCounts(tok, run.manifest, run.episodes);
    assert.equal(counts.checked, run.episodes.length);
    assert.equal(counts.failed, 0, "every episode could be checked");
    for (const e of run.episodes) {
      const r = checkEpisodeDrift(tok, e, driftSettings(run.manifest));
      assert.equal(r.checked, true, r.problem);
      assert.equal(r.templateDriftTokens, 0, `${e.id}: ${JSON.stringify(r.firstTextDifference)}`);
      assert.notEqual(driftVerdict(r), "template-drift", `${e.id}: ${JSON.stringify(r.firstTextDifference)}`);
      // A run's counts skip the reply renderings: they count the same.
      const full = emptyDriftCounts();
      countDrift(full, r);
      const light = emptyDriftCounts();
      countEpisodeDrift(light, tok, e, driftSettings(run.manifest));
      assert.deepEqual(light, full);
    }
    assert.equal(counts.templateDrift, 0);
    return counts;
  };

  for (const template of TEMPLATES) {
    describe(template.label, () => {
      let tok: ChatTokenizer;
      before(async function () {
        if (template.label.startsWith("Qwen3.5") && !sharedDataPath("qwen3_5", "qwen3_5_chat_template.jinja")) {
          console.log("      skipped: ../shared/data/qwen3_5 is not present (the real Qwen3.5 template text)");
          return this.skip();
        }
        tok = await template.load();
      });

      for (const thinkingOn of [false, true]) {
        const setting = `thinking ${thinkingOn ? "on" : "off"}`;

        it(`GSM8K (few-shot turn), ${setting}: a fresh eval shows no template drift`, async () => {
          for (const { label, ws } of gsmWorkspaces) {
            const items = new Map(
              GSM8K.data.load(GSM8K.data.dir(join(ws, "data")), "val").map((i) => [i.question, i] as const),
            );
            const policy = new ScriptedPolicy(tok, (ctx) => {
              const item = items.get(questionOf(ctx.promptText));
              assert.ok(item, `${label}: the prompt ends with a val question`);
              const reply = replyFor(item.answers[0], behaviourOf(item.id));
              return thinkingOn ? thinking(ctx.promptText, reply) : reply;
            });
            const run = await evalRun(ws, {
              env: "gsm8k",
              name: `gsm-${template.label.replace(/\W+/g, "")}-${thinkingOn}`,
              policy,
              thinking: thinkingOn,
              limit: 40,
            });
            assert.equal(run.manifest!.thinking, thinkingOn, "the manifest records the thinking setting");
            const fewShot = tok.decode(run.episodes[0].prompt);
            assert.ok(fewShot.includes(`<|im_start|>assistant\n${FEWSHOT_PREFIX[1].content}`), "a few-shot answer");
            assert.ok(!fewShot.includes(`<|im_start|>assistant\n${EMPTY_THINK}${FEWSHOT_PREFIX[1].content}`));
            const counts = assertNoDrift(tok, run);
            assert.equal(counts.checked, 40, label);
          }
        });

        it(`HotpotQA (multi-turn search results), config ${setting}: no template drift, thinking recorded off`, async () => {
          const workspaces = [
            { label: "synthetic world", ws: hotpotWs, split: "train" as const },
            ...(realHotpotWs ? [{ label: "real records", ws: realHotpotWs, split: "val" as const }] : []),
          ];
          for (const { label, ws, split } of workspaces) {
            const run = await evalRun(ws, {
              env: "hotpotqa",
              name: `hotpot-${template.label.replace(/\W+/g, "")}-${thinkingOn}`,
              policy: new HeuristicPolicy(tok),
              thinking: thinkingOn,
              limit: 30,
              split,
            });
            // The agent's turns are stitched non-thinking whatever the config says, and its manifest says so.
            assert.equal(run.manifest!.thinking, false, label);
            const replies = (e: EpisodeRecord) => e.sampled.filter((f, i) => f === 1 && e.sampled[i - 1] !== 1).length;
            const multiTurn = run.episodes.filter((e) => replies(e) >= 2);
            assert.ok(multiTurn.length >= 10, `${label}: ${multiTurn.length} episodes searched and read results`);
            assertNoDrift(tok, run);
          }
        });
      }

      it("HotpotQA, every end rule: cut off, end token left out, no action, empty query, replies with outer whitespace", async () => {
        const replies = (ctx: { turn: number; promptText: string }): ScriptedReply => {
          const users = ctx.promptText.split("<|im_start|>user\n");
          const n = [...users[1]].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % 6;
          if (n === 0) return ctx.turn < 3 ? `<search>${ctx.turn === 1 ? "" : "town"}</search>` : "<answer>x</answer>";
          if (n === 1) return { text: "I will think for a very long time about this and then", stopReason: "length" };
          if (n === 2) return "I do not know.";
          if (n === 3)
            return ctx.turn === 0
              ? { text: "<search>company founded</search>", omitEndToken: true }
              : "<answer>Kel</answer>";
          if (n === 4) return ctx.turn === 0 ? "\n<search>born</search>  " : " <answer>early</answer>\n";
          return ctx.turn === 0 ? "<search>born</search> <answer>early</answer> trailing" : "<answer>never</answer>";
        };
        const run = await evalRun(hotpotWs, {
          env: "hotpotqa",
          name: `hotpot-edges-${template.label.replace(/\W+/g, "")}`,
          policy: new ScriptedPolicy(tok, replies),
          thinking: false,
          limit: 40,
          split: "train",
        });
        const counts = assertNoDrift(tok, run);
        assert.equal(counts.checked, 40);
      });

      it("GSM8K: a corrupted inserted token, and the old check's think block before the few-shot answer, are drift", async () => {
        const ws = gsmWorkspaces[0].ws;
        const items = new Map(
          GSM8K.data.load(GSM8K.data.dir(join(ws, "data")), "val").map((i) => [i.question, i] as const),
        );
        const policy = new ScriptedPolicy(tok, (ctx) =>
          replyFor(items.get(questionOf(ctx.promptText))!.answers[0], "right"),
        );
        const run = await evalRun(ws, {
          env: "gsm8k",
          name: `gsm-corrupt-${template.label.replace(/\W+/g, "")}`,
          policy,
          thinking: false,
          limit: 3,
        });
        const e = run.episodes[0];
        const settings = driftSettings(run.manifest);
        assert.equal(driftVerdict(checkEpisodeDrift(tok, e, settings)), "clean");

        // The newline the template writes between the few-shot answer's <|im_end|> and the question's turn, doubled.
        const text = tok.decode(e.prompt);
        const end = tok.tokenId("<|im_end|>");
        const ends = e.prompt.flatMap((id, i) => (id === end ? [i] : []));
        const nl = ends[1] + 1; // after the few-shot answer (the first <|im_end|> closes the few-shot question)
        assert.equal(tok.decode([e.prompt[nl]]), "\n");
        const doubled = [...e.prompt];
        doubled[nl] = tok.encode("\n\n")[0];
        const r = checkDrift(tok, doubled, e.tokens, e.sampled, settings);
        assert.equal(driftVerdict(r), "template-drift");
        assert.equal(r.firstTextDifference!.writer, "inserted");
        assert.equal(r.firstTextDifference!.tokenIndex, nl);
        assert.deepEqual(r.templateDrift[r.templateDrift.length - 1], [nl, nl + 1]);

        // A word of the few-shot answer (inserted) split into other ids: same text, not the template's tokens.
        const word = " spell";
        const index = e.prompt.findIndex((id) => tok.decode([id]) === word);
        assert.ok(index > 0, "the few-shot answer has the token");
        const spelled = [...word].flatMap((ch) => tok.encode(ch));
        const resplit = [...e.prompt.slice(0, index), ...spelled, ...e.prompt.slice(index + 1)];
        const s = checkDrift(tok, resplit, e.tokens, e.sampled, settings);
        assert.equal(s.textMatches, true);
        assert.equal(driftVerdict(s), "template-drift");
        assert.deepEqual(s.templateDrift, [[index, index + spelled.length]]);

        // What the old check expected: the empty think block before the few-shot answer. The template has none there.
        const header = `<|im_start|>assistant\n${FEWSHOT_PREFIX[1].content}`;
        const thought = tok.encode(
          text.replace(header, `<|im_start|>assistant\n${EMPTY_THINK}${FEWSHOT_PREFIX[1].content}`),
        );
        const t = checkDrift(tok, thought, e.tokens, e.sampled, settings);
        assert.equal(driftVerdict(t), "template-drift");
        assert.equal(t.firstTextDifference!.writer, "inserted");
        assert.match(t.firstTextDifference!.recorded, /^<?think>/);
        assert.equal(t.firstTextDifference!.expected.slice(0, 20), FEWSHOT_PREFIX[1].content.slice(0, 20));
      });

      it("GSM8K: a thinking-on run checked as thinking off is drift at its generation prompt", async () => {
        const ws = gsmWorkspaces[0].ws;
        const items = new Map(
          GSM8K.data.load(GSM8K.data.dir(join(ws, "data")), "val").map((i) => [i.question, i] as const),
        );
        const policy = new ScriptedPolicy(tok, (ctx) =>
          thinking(ctx.promptText, replyFor(items.get(questionOf(ctx.promptText))!.answers[0], "right")),
        );
        const run = await evalRun(ws, {
          env: "gsm8k",
          name: `gsm-thinking-${template.label.replace(/\W+/g, "")}`,
          policy,
          thinking: true,
          limit: 3,
        });
        const e: EpisodeRecord = run.episodes[0];
        assert.equal(driftVerdict(checkEpisodeDrift(tok, e, driftSettings(run.manifest))), "clean");
        const wrong = checkEpisodeDrift(tok, e, { thinking: false });
        assert.notEqual(driftVerdict(wrong), "clean");
        assert.equal(wrong.textMatches, false);
        // Where the prompts part: Qwen3.5 opens the think block itself (inserted), Qwen3 lets the model write it.
        const at = wrong.firstTextDifference!.tokenIndex;
        assert.ok(Math.abs(at - e.prompt.length) <= 3, `at ${at}, prompt ${e.prompt.length}`);
        // An older manifest without the field is read as thinking off; GSM8K's own prompt.thinking still says.
        assert.deepEqual(driftSettings({ tokenizer: tok.name }), { thinking: false });
        assert.deepEqual(driftSettings({ prompt: { few_shot: "strawberry", thinking: true } }), { thinking: true });
      });
    });
  }
});
