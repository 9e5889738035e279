/**
 * The stand-in's template is not Qwen3.5's, even for plain non-thinking chats: Qwen3.5's trims every
 * message's content and Qwen3's does not. On the 7,405 real HotpotQA dev questions the two render
 * different prompts for exactly the 504 with leading or trailing spaces, and the same for the rest.
 * A run recorded with the Qwen3.5 template text is checked with that template (the run's tokenizer
 * resolves it by its tag), and shows no drift; checked with the stand-in's it would.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { offlineTokenizer } from "../../../../../src/core/base/chat/offline-tokenizer";
import type { ChatMessage, ChatTokenizer } from "../../../../../src/core/base/chat/tokenizer";
import { tokenizerForRun } from "../../../../../src/core/base/runs/run-tokenizer";
import { checkDrift, driftVerdict } from "../../../../../src/core/views/trace/drift";
import { sharedDataPath } from "../../../../helpers/shared-data";
import { readHotpot, realEpisode } from "../../views/trace/real-episodes";

const chat = (question: string): ChatMessage[] => [
  { role: "system", content: "Answer the question." },
  { role: "user", content: question },
];

describe("chat: the stand-in's template and Qwen3.5's", function () {
  this.timeout(120_000);
  let qwen3: ChatTokenizer;
  let qwen35: ChatTokenizer | undefined;

  before(async () => {
    qwen3 = await offlineTokenizer("qwen3");
    const template = sharedDataPath("qwen3_5", "qwen3_5_chat_template.jinja");
    if (template) qwen35 = await offlineTokenizer("qwen3.5", { templateFile: template });
    else console.log("      note: ../shared/data/qwen3_5 is not present; only the Qwen3 side runs");
  });

  it("a question with leading and trailing spaces: Qwen3 keeps them, Qwen3.5 trims them", () => {
    const question = "  Who wrote Kiss and Tell?  ";
    const rendered = qwen3.renderChat(chat(question), { addGenerationPrompt: true });
    assert.ok(rendered.includes(`<|im_start|>user\n${question}<|im_end|>`), "Qwen3 renders the content as given");
    if (!qwen35) return;
    const trimmed = qwen35.renderChat(chat(question), { addGenerationPrompt: true });
    assert.ok(trimmed.includes(`<|im_start|>user\n${question.trim()}<|im_end|>`), "Qwen3.5 trims it");
    assert.notEqual(trimmed, rendered);
    assert.equal(trimmed, qwen3.renderChat(chat(question.trim()), { addGenerationPrompt: true }));
  });

  it("on the real dev questions the prompts differ exactly for the 504 with outer whitespace", function () {
    const file = sharedDataPath("hotpotqa", "hotpotqa_dev_questions_only_react.jsonl");
    if (!file || !qwen35) return this.skip();
    const questions = readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { question: string }).question);
    assert.equal(questions.length, 7405);
    const trimming = qwen35;
    let differ = 0;
    for (const q of questions) {
      const same: boolean =
        qwen3.renderChat(chat(q), { addGenerationPrompt: true }) ===
        trimming.renderChat(chat(q), { addGenerationPrompt: true });
      assert.equal(same, q === q.trim(), JSON.stringify(q));
      if (!same) differ++;
    }
    assert.equal(differ, 504);
  });

  it("a stand-in run's prompts are not what Qwen3.5's template renders; a Qwen3.5-template run is checked with its template", async function () {
    const file = sharedDataPath("hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    if (!file || !qwen35) return this.skip();
    const row = readHotpot(file).find((r) => r.question !== r.question.trim() && !["yes", "no"].includes(r.answer));
    assert.ok(row, "a real question with outer whitespace");
    const replies = [`<search>${row.context[0][0]}</search>`, `<answer>${row.answer}</answer>`];
    // Recorded with the stand-in: clean under its own template, drift at the question under Qwen3.5's.
    const rehearsed = await realEpisode(qwen3, row, replies);
    assert.equal(driftVerdict(checkDrift(qwen3, rehearsed.prompt, rehearsed.tokens, rehearsed.sampled)), "clean");
    const real = checkDrift(qwen35, rehearsed.prompt, rehearsed.tokens, rehearsed.sampled);
    assert.equal(driftVerdict(real), "template-drift");
    assert.equal(real.firstTextDifference!.writer, "inserted");
    assert.ok(real.firstTextDifference!.tokenIndex < rehearsed.prompt.length, "in the prompt's question");
    // Recorded with the Qwen3.5 template text: the run's tokenizer is that template (found by its
    // tag in the manifest's name), not the stand-in's, and the run is clean under it.
    const e = await realEpisode(qwen35, row, replies);
    const { tokenizer } = await tokenizerForRun(qwen35.name);
    assert.equal(tokenizer!.name, qwen35.name);
    assert.equal(
      tokenizer!.renderChat(chat(row.question), { addGenerationPrompt: true }),
      qwen35.renderChat(chat(row.question), { addGenerationPrompt: true }),
    );
    assert.equal(driftVerdict(checkDrift(tokenizer!, e.prompt, e.tokens, e.sampled)), "clean");
  });
});
