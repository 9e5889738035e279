/** export-chat: runs and SFT data as OpenAI-style or tinker-cookbook chat JSONL, decoded from the recorded token ids. */
import { strict as assert } from "node:assert";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer, type ChatTokenizer } from "../../../../../src/core/base/chat";
import { mergeConfig } from "../../../../../src/core/envs/config";
import { HeuristicPolicy } from "../../../../../src/core/envs/hotpotqa/heuristic-policy";
import { DEMO_SEED } from "../../../../../src/core/steps/demo/run-demo";
import { writeGsm8kSplits } from "../../../../../src/core/envs/gsm8k";
import { loadSystemPrompt } from "../../../../../src/core/harness";
import { ScriptedPolicy } from "../../../../../src/core/harness/policies/scripted";
import { readEpisodes } from "../../../../../src/core/base/runs/run-files";
import {
  exportChat,
  parseChatText,
  sftFromRuns,
  type ChatLine,
  type CookbookLine,
} from "../../../../../src/core/steps/sft";
import { readSftRows } from "../../../../../src/core/steps/sft/sft-files";
import { runCli } from "../../../cli/cli-process";
import { fixtureRecords } from "../../envs/gsm8k/fixture";
import { prepareSyntheticWorkspace } from "../../../../helpers/synthetic-workspace";
import { scriptedEval } from "../../../../helpers/scripted-eval";
import { environmentMetrics } from "../../../../../src/core/envs/catalog";

const readLines = <T = ChatLine>(file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);

/** tinker-cookbook's `Message` fields (renderers/base.py) and the top-level keys its conversation files carry. */
const COOKBOOK_MESSAGE_FIELDS = ["role", "content", "trainable", "tool_calls", "tool_call_id", "name"];

/** Every line is a cookbook conversation: only its documented fields, with their types, `trainable` on every message. */
function assertCookbookLines(lines: Record<string, unknown>[]): void {
  for (const line of lines) {
    assert.deepEqual(Object.keys(line).sort(), ["id", "messages", "reward"]);
    assert.ok(Array.isArray(line.messages) && line.messages.length > 0);
    for (const m of line.messages as Record<string, unknown>[]) {
      for (const k of Object.keys(m))
        assert.ok(COOKBOOK_MESSAGE_FIELDS.includes(k), `field ${k} not in cookbook Message`);
      assert.ok(["system", "user", "assistant", "tool"].includes(m.role as string));
      assert.equal(typeof m.content, "string");
      assert.equal(typeof m.trainable, "boolean", "every message has trainable");
      assert.ok(!("weight" in m));
    }
  }
}

/** The decoded text of each run of sampled (trained-on) tokens, in order. */
function trainedSpans(tokens: number[], sampled: number[], tok: ChatTokenizer): string[] {
  const out: string[] = [];
  let from = -1;
  for (let i = 0; i <= sampled.length; i++) {
    if (sampled[i] === 1 && from < 0) from = i;
    if (sampled[i] !== 1 && from >= 0) {
      out.push(tok.decode(tokens.slice(from, i), { skipSpecialTokens: true }));
      from = -1;
    }
  }
  return out;
}

/** sha256 of the openai export of this file's GSM8K SFT data, made by the code before --format existed. */
const OPENAI_SFT_EXPORT_SHA256 = "6487d961ecd55cea9b499911ebbbed50cbb28750a306c39d4aebe06536407c52";

describe("sft/exportChat", function () {
  this.timeout(120_000);
  let root: string;
  let tok: ChatTokenizer;
  before(async () => {
    root = mkdtempSync(join(tmpdir(), "agent-lab-export-chat-"));
    tok = await offlineTokenizer("qwen3");
  });
  after(() => root && rmSync(root, { recursive: true, force: true }));

  it("parseChatText: roles and contents; the generation prompt's empty assistant opener is dropped", () => {
    const text = tok.renderChat(
      [
        { role: "system", content: "S" },
        { role: "user", content: "Q" },
      ],
      { addGenerationPrompt: true },
    );
    assert.deepEqual(parseChatText(text), [
      { role: "system", content: "S" },
      { role: "user", content: "Q" },
    ]);
  });

  it("a HotpotQA run: system, question, then each reply (weight 1) and each search result as the user turn it was; the search tool declared; --format cookbook: trainable exactly on the replies", async () => {
    const ws = join(root, "hotpot");
    await prepareSyntheticWorkspace(ws, { seed: DEMO_SEED, train: 20, dev: 540 });
    const config = mergeConfig({ dataDir: "data", runsDir: "runs", concurrency: 2 });
    const r = await scriptedEval({
      workspaceDir: ws,
      config,
      name: "heur",
      split: "val",
      limit: 8,
      policy: new HeuristicPolicy(tok),
    });
    const out = join(ws, "chat.jsonl");
    assert.deepEqual(await exportChat(r.runDir, out), { lines: 8, source: "episodes.jsonl" });
    const episodes = readEpisodes(r.runDir, environmentMetrics);
    const system = loadSystemPrompt().text;
    for (const line of readLines(out)) {
      const e = episodes.find((x) => x.id === line.id)!;
      assert.deepEqual(line.messages.slice(0, 2), [
        { role: "system", content: system },
        { role: "user", content: e.question },
      ]);
      const assistant = line.messages.filter((m) => m.role === "assistant");
      assert.equal(assistant.length, e.turns!.length);
      assert.ok(assistant.every((m) => m.weight === 1));
      e.turns!.forEach((t, i) =>
        assert.equal(
          assistant[i].content,
          tok.decode(e.tokens.slice(t.start, t.reply_end), { skipSpecialTokens: true }),
        ),
      );
      const results = line.messages.slice(2).filter((m) => m.role === "user");
      assert.equal(results.length, e.searches.length);
      assert.ok(results.every((m) => m.content.startsWith("<result>")));
      assert.deepEqual(
        line.tools?.map((t) => t.function.name),
        ["search"],
      );
      assert.equal(line.reward, e.reward);
    }
    const cookbook = join(ws, "cookbook.jsonl");
    assert.deepEqual(await exportChat(r.runDir, cookbook, "cookbook"), { lines: 8, source: "episodes.jsonl" });
    const cbLines = readLines<CookbookLine>(cookbook);
    assertCookbookLines(cbLines as unknown as Record<string, unknown>[]);
    for (const line of cbLines) {
      const e = episodes.find((x) => x.id === line.id)!;
      assert.deepEqual(
        line.messages.filter((m) => m.trainable).map((m) => m.content),
        e.turns!.map((t) => tok.decode(e.tokens.slice(t.start, t.reply_end), { skipSpecialTokens: true })),
      );
      assert.ok(line.messages.filter((m) => m.role !== "assistant").every((m) => !m.trainable));
    }
  });

  it("a GSM8K run and its --from-runs SFT data: the few-shot answer is weight 0, the model's weight 1, no tools; re-rendering gives the prompt's ids; openai bytes unchanged, cookbook lines valid, a bad --format refused", async () => {
    const ws = join(root, "gsm8k");
    await writeGsm8kSplits(join(ws, "data", "gsm8k"), fixtureRecords(520, 0), fixtureRecords(10, 10_000), "fixture");
    writeFileSync(join(ws, "agent-lab.json"), JSON.stringify({ env: "gsm8k" }));
    const config = mergeConfig({ dataDir: "data", runsDir: "runs", env: "gsm8k", concurrency: 2 });
    const r = await scriptedEval({
      workspaceDir: ws,
      config,
      name: "g",
      split: "train",
      limit: 6,
      policy: new ScriptedPolicy(tok, () => "\\boxed{0}"),
    });
    const out = join(ws, "chat.jsonl");
    await exportChat(r.runDir, out);
    const lines = readLines(out);
    const e = readEpisodes(r.runDir, environmentMetrics);
    for (const line of lines) {
      assert.deepEqual(
        line.messages.map((m) => [m.role, m.weight]),
        [
          ["user", undefined],
          ["assistant", 0],
          ["user", undefined],
          ["assistant", 1],
        ],
      );
      assert.equal(line.messages[3].content, "\\boxed{0}");
      assert.equal(line.tools, undefined);
      const prompt = line.messages.slice(0, 3).map(({ role, content }) => ({ role, content }));
      assert.deepEqual(
        tok.encode(tok.renderChat(prompt, { addGenerationPrompt: true })),
        e.find((x) => x.id === line.id)!.prompt,
      );
    }
    sftFromRuns({
      workspaceDir: ws,
      config,
      name: "sft",
      runs: ["g"],
      minReward: 0,
      bestOf: 1,
      perTurn: false,
      command: ["test"],
    });
    const cli = await runCli(["export-chat", "sft", "--out", join(ws, "sft-chat.jsonl"), "--workspace", ws]);
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /wrote 6 conversations from sft\.jsonl/);
    const openaiBytes = readFileSync(join(ws, "sft-chat.jsonl"));
    assert.equal(readLines(join(ws, "sft-chat.jsonl")).length, 6);
    // The openai format is byte-identical to the export before --format existed (its sha256 then), and --format openai is the default.
    assert.equal(createHash("sha256").update(openaiBytes).digest("hex"), OPENAI_SFT_EXPORT_SHA256);
    const asOpenai = await runCli([
      "export-chat",
      "sft",
      "--format",
      "openai",
      "--out",
      join(ws, "sft-openai.jsonl"),
      "--workspace",
      ws,
    ]);
    assert.equal(asOpenai.code, 0, asOpenai.stderr);
    assert.deepEqual(readFileSync(join(ws, "sft-openai.jsonl")), openaiBytes);

    // --format cookbook: tinker-cookbook's conversation file; trainable exactly on the tokens the row trains on.
    const cb = await runCli([
      "export-chat",
      "sft",
      "--format",
      "cookbook",
      "--out",
      join(ws, "sft-cookbook.jsonl"),
      "--workspace",
      ws,
    ]);
    assert.equal(cb.code, 0, cb.stderr);
    assert.match(cb.stdout, /wrote 6 conversations from sft\.jsonl/);
    const cbLines = readLines<CookbookLine>(join(ws, "sft-cookbook.jsonl"));
    assert.equal(cbLines.length, 6);
    assertCookbookLines(cbLines as unknown as Record<string, unknown>[]);
    const rows = readSftRows(join(ws, "runs", "sft", "sft.jsonl"));
    const openaiLines = readLines(join(ws, "sft-chat.jsonl"));
    for (const line of cbLines) {
      const row = rows.find((x) => x.id === line.id)!;
      assert.deepEqual(
        line.messages.map((m) => [m.role, m.trainable]),
        [
          ["user", false],
          ["assistant", false],
          ["user", false],
          ["assistant", true],
        ],
      );
      assert.deepEqual(
        line.messages.filter((m) => m.trainable).map((m) => m.content),
        trainedSpans(row.tokens, row.sampled, tok),
      );
      const o = openaiLines.find((x) => x.id === line.id)!;
      assert.deepEqual(
        line.messages.map((m) => m.content),
        o.messages.map((m) => m.content),
      );
      assert.equal(line.reward, o.reward);
    }

    const badFormat = await runCli([
      "export-chat",
      "sft",
      "--format",
      "jsonl",
      "--out",
      join(ws, "y.jsonl"),
      "--workspace",
      ws,
    ]);
    assert.equal(badFormat.code, 1);
    assert.match(badFormat.stderr, /--format must be one of openai, cookbook, got "?jsonl"?/);
    assert.equal(badFormat.stderr.trim().split("\n").length, 1, badFormat.stderr);
    const missing = await runCli(["export-chat", "nope", "--out", join(ws, "x.jsonl"), "--workspace", ws]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no such run folder or file/);
  });
});
