/** The cookbook's GSM8K prompt, rendered through the real Qwen3.5 chat template (../shared/data/qwen3_5). */
import assert from "node:assert/strict";
import { offlineTokenizer, type ChatTokenizer } from "../../../../../src/core/base/chat";
import { FEWSHOT_PREFIX, QUESTION_SUFFIX, gsm8kPrompt } from "../../../../../src/core/envs/gsm8k";
import { requireSharedData } from "../../../../helpers/shared-data";

const QUESTION =
  "Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. How many clips did Natalia sell altogether in April and May?";

describe("gsm8k prompt: the cookbook's math_rl format", function () {
  it("is the strawberry exchange, then the question with the boxed suffix; no system message, thinking off", () => {
    const p = gsm8kPrompt(QUESTION);
    assert.equal(p.thinking, false);
    assert.deepEqual(
      p.messages.map((m) => m.role),
      ["user", "assistant", "user"],
    );
    assert.equal(p.messages[0].content, "How many r's are in strawberry? Write your answer in \\boxed{} format.");
    assert.ok(p.messages[1].content.endsWith("We have r's at positions 3, 8, and 9. \\boxed{3}"));
    assert.equal(p.messages[2].content, `${QUESTION} Write your answer in \\boxed{} format.`);
    assert.equal(QUESTION_SUFFIX, " Write your answer in \\boxed{} format.");
    assert.equal(gsm8kPrompt(QUESTION, { thinking: true }).thinking, true);
    assert.deepEqual(
      gsm8kPrompt(QUESTION, { fewShot: false }).messages.map((m) => m.role),
      ["user"],
    );
  });

  it("returns fresh messages: editing one prompt does not change the few-shot prefix", () => {
    gsm8kPrompt(QUESTION).messages[0].content = "changed";
    assert.ok(FEWSHOT_PREFIX[0].content.startsWith("How many r's"));
  });

  describe("rendered through the Qwen3.5 template", function () {
    let tok: ChatTokenizer;
    before(async function () {
      const template = requireSharedData(this, "qwen3_5", "qwen3_5_chat_template.jinja");
      tok = await offlineTokenizer("qwen3.5", { templateFile: template });
    });

    const expected = (generation: string) =>
      "<|im_start|>user\nHow many r's are in strawberry? Write your answer in \\boxed{} format.<|im_end|>\n" +
      "<|im_start|>assistant\nLet's spell the word out and number all the letters: 1) s 2) t 3) r 4) a 5) w 6) b 7) e 8) r 9) r 10) y. " +
      "We have r's at positions 3, 8, and 9. \\boxed{3}<|im_end|>\n" +
      `<|im_start|>user\n${QUESTION} Write your answer in \\boxed{} format.<|im_end|>\n` +
      `<|im_start|>assistant\n${generation}`;

    it("thinking off: the generation prompt ends with the empty think block", () => {
      const p = gsm8kPrompt(QUESTION);
      assert.equal(
        tok.renderChat(p.messages, { addGenerationPrompt: true, thinking: p.thinking }),
        expected("<think>\n\n</think>\n\n"),
      );
    });

    it("thinking on: the generation prompt opens a think block for the model to fill", () => {
      const p = gsm8kPrompt(QUESTION, { thinking: true });
      assert.equal(
        tok.renderChat(p.messages, { addGenerationPrompt: true, thinking: p.thinking }),
        expected("<think>\n"),
      );
    });

    it("the rendered prompt tokenizes and decodes back to the same text", () => {
      const p = gsm8kPrompt(QUESTION);
      const text = tok.renderChat(p.messages, { addGenerationPrompt: true });
      assert.equal(tok.decode(tok.encode(text)), text);
    });
  });
});
