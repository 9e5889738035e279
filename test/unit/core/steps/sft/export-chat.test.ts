/** export-chat: runs and SFT data as OpenAI-style chat JSONL, decoded from the recorded token ids. */
import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer, type ChatTokenizer } from "../../../../../src/core/base/chat";
import { mergeConfig } from "../../../../../src/core/base/config";
import { HeuristicPolicy } from "../../../../../src/core/envs/hotpotqa/heuristic-policy";
import { DEMO_SEED } from "../../../../../src/core/steps/demo/run-demo";
import { writeGsm8kSplits } from "../../../../../src/core/envs/gsm8k";
import { evalSplit } from "../../../../../src/core/steps/eval/eval-split";
import { loadSystemPrompt } from "../../../../../src/core/harness";
import { ScriptedPolicy } from "../../../../../src/core/harness/policies/scripted";
import { readEpisodes } from "../../../../../src/core/base/runs/run-files";
import { exportChat, parseChatText, sftFromRuns, type ChatLine } from "../../../../../src/core/steps/sft";
import { runCli } from "../../../cli/cli-process";
import { fixtureRecords } from "../../envs/gsm8k/fixture";
import { prepareSyntheticWorkspace } from "../../../../helpers/synthetic-workspace";

const readLines = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ChatLine);

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

  it("a HotpotQA run: system, question, then each reply (weight 1) and each search result as the user turn it was; the search tool declared", async () => {
    const ws = join(root, "hotpot");
    await prepareSyntheticWorkspace(ws, { seed: DEMO_SEED, train: 20, dev: 540 });
    const config = mergeConfig({ dataDir: "data", runsDir: "runs", concurrency: 2 });
    const r = await evalSplit({
      workspaceDir: ws,
      config,
      name: "heur",
      split: "val",
      limit: 8,
      closedBook: false,
      resume: false,
      temperature: 0,
      backend: "scripted",
      policy: new HeuristicPolicy(tok),
      command: ["test"],
    });
    const out = join(ws, "chat.jsonl");
    assert.deepEqual(await exportChat(r.runDir, out), { lines: 8, source: "episodes.jsonl" });
    const episodes = readEpisodes(r.runDir);
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
  });

  it("a GSM8K run and its --from-runs SFT data: the few-shot answer is weight 0, the model's weight 1, no tools; re-rendering gives the prompt's ids", async () => {
    const ws = join(root, "gsm8k");
    await writeGsm8kSplits(join(ws, "data", "gsm8k"), fixtureRecords(520, 0), fixtureRecords(10, 10_000), "fixture");
    writeFileSync(join(ws, "agent-lab.json"), JSON.stringify({ env: "gsm8k" }));
    const config = mergeConfig({ dataDir: "data", runsDir: "runs", env: "gsm8k", concurrency: 2 });
    const r = await evalSplit({
      workspaceDir: ws,
      config,
      name: "g",
      split: "train",
      limit: 6,
      closedBook: false,
      resume: false,
      temperature: 0,
      backend: "scripted",
      policy: new ScriptedPolicy(tok, () => "\\boxed{0}"),
      command: ["test"],
    });
    const out = join(ws, "chat.jsonl");
    await exportChat(r.runDir, out);
    const lines = readLines(out);
    const e = readEpisodes(r.runDir);
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
    assert.equal(readLines(join(ws, "sft-chat.jsonl")).length, 6);
    const missing = await runCli(["export-chat", "nope", "--out", join(ws, "x.jsonl"), "--workspace", ws]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no such run folder or file/);
  });
});
