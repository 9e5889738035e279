/**
 * GSM8K's offline arithmetic world: the generator is seeded (same seed, same bytes), its files are
 * GSM8K records the real reader takes, and the scripted teacher's replies — sampled on the prompt
 * GSM8K's environment renders — are graded by GSM8K's own grader: right on the kinds it knows,
 * wrong on the kind it leaves out (the price asked in words), every token of its box one the prompt holds.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../../../src/core/base/chat";
import { loadConfig } from "../../../../../src/core/envs/config";
import { readGsm8kRecords } from "../../../../../src/core/envs/gsm8k/data";
import { gradeReply } from "../../../../../src/core/envs/gsm8k";
import { GSM8K_OFFLINE } from "../../../../../src/core/envs/gsm8k/offline";
import { ArithmeticTeacher } from "../../../../../src/core/envs/gsm8k/teacher";
import { generateArithmeticWorld, worldKind, worldNumbers } from "../../../../../src/core/envs/gsm8k/world";
import type { Gsm8kItem } from "../../../../../src/core/envs/gsm8k/environment";

describe("envs/gsm8k offline world", function () {
  this.timeout(60_000);
  const dirs: string[] = [];
  const tmp = () => {
    const d = mkdtempSync(join(tmpdir(), "agent-lab-arith-"));
    dirs.push(d);
    return d;
  };
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it("same seed, same bytes; another seed, other problems; GSM8K's reader takes the files", async () => {
    const size = { seed: 11, train: 300, dev: 40 };
    const [a, b, c] = [tmp(), tmp(), tmp()];
    await GSM8K_OFFLINE.write(a, size);
    await GSM8K_OFFLINE.write(b, size);
    await GSM8K_OFFLINE.write(c, { ...size, seed: 12 });
    for (const f of GSM8K_OFFLINE.files) {
      assert.equal(readFileSync(join(a, f), "utf8"), readFileSync(join(b, f), "utf8"), f);
      assert.notEqual(readFileSync(join(a, f), "utf8"), readFileSync(join(c, f), "utf8"), f);
    }
    const [train, test] = await Promise.all(GSM8K_OFFLINE.files.map((f) => readGsm8kRecords(join(a, f))));
    assert.equal(train.length, 300);
    assert.equal(test.length, 40);
    const questions = [...train, ...test].map((r) => r.question);
    assert.equal(new Set(questions).size, questions.length, "no problem twice, within or across the files");
    const kinds = new Set(questions.map((q) => worldKind(q)));
    assert.deepEqual([...kinds].sort(), ["count", "dollars", "price", "stall"]);
    for (const r of train) {
      const n = worldNumbers(r.question);
      assert.ok(n, r.question);
      assert.equal(new Set([n.count, n.price, n.stall]).size, 3, "three distinct numbers");
    }
  });

  it("the teacher's replies, on the prompt GSM8K renders, are graded right by GSM8K's grader except on the price asked in words", async () => {
    const tok = await offlineTokenizer("qwen3");
    const teacher = new ArithmeticTeacher(tok);
    const env = GSM8K_OFFLINE.env;
    const dir = tmp();
    const run = await env.open({ workspaceDir: dir, config: loadConfig(dir), dataDir: dir });
    const world = generateArithmeticWorld({ seed: 5, train: 90, test: 0 });
    const graded = { count: [0, 0], price: [0, 0], stall: [0, 0], dollars: [0, 0] };
    for (const [i, r] of world.train.entries()) {
      const item: Gsm8kItem = { id: `t${i}`, question: r.question, answers: [], solution: r.answer };
      const episode = run.start(item, { tokenizer: tok, systemPrompt: undefined });
      const sample = await teacher.sample(episode.prompt, { temperature: 0, maxTokens: 16 });
      assert.equal(sample.stopReason, "stop");
      assert.equal(sample.tokens.at(-1), teacher.endToken);
      const reply = sample.tokens.slice(0, -1);
      // The box's content, to its closing brace: tokens the prompt holds, for a copy head to reproduce.
      const content = reply.slice(tok.encode("\\boxed{").length);
      const inPrompt = new Set(episode.prompt);
      assert.ok(
        content.length > 0 && content.every((t) => inPrompt.has(t)),
        `every token of the box is one the prompt holds: ${tok.decode(reply)}`,
      );
      const verdict = gradeReply(tok.decode(reply), r.answer);
      const kind = worldKind(r.question)!;
      graded[kind][verdict.correct ? 0 : 1]++;
    }
    assert.ok(graded.count[0] > 0 && graded.count[1] === 0, JSON.stringify(graded));
    assert.ok(graded.price[0] > 0 && graded.price[1] === 0, JSON.stringify(graded));
    assert.ok(graded.stall[0] > 0 && graded.stall[1] === 0, JSON.stringify(graded));
    // The price asked in words, naming no variable: the teacher has no rule for it.
    assert.ok(graded.dollars[0] === 0 && graded.dollars[1] > 0, JSON.stringify(graded));
  });
});
