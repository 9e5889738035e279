/**
 * The drift check's parts that need no tokenizer (drift.ts): reading turns back out of recorded text,
 * a run's counts and the one line `show` prints for them. Mutation-testing gaps, issue 31; the check
 * itself on real episodes is drift.test.ts and drift-parity.test.ts.
 */
import assert from "node:assert/strict";
import {
  countDrift,
  type DriftReport,
  driftCountsLine,
  driftSettings,
  emptyDriftCounts,
  messagesFromText,
} from "../../../../../src/core/views/trace/drift";

const report = (over: Partial<DriftReport>): DriftReport => ({
  checked: true,
  messages: 3,
  textMatches: true,
  tokenDifferences: [],
  differingTokens: 0,
  templateDrift: [],
  templateDriftTokens: 0,
  nonCanonical: [],
  nonCanonicalTokens: 0,
  emittedSpecial: [],
  ...over,
});

describe("trace: drift check parts", () => {
  it("reads turns back with where each body starts and ends, and whether it was closed", () => {
    const text =
      "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n" +
      "<|im_start|>assistant\n<think>\n\n</think>\n\nHello<|im_end|>\n<|im_start|>user\nAgain";
    const chat = messagesFromText(text);
    assert.deepEqual(chat.messages, [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Hello" },
      { role: "user", content: "Again" },
    ]);
    assert.equal(chat.addGenerationPrompt, false);
    const [system, , assistant, open] = chat.turns;
    assert.equal(text.slice(system.bodyStart, system.bodyEnd), "Be brief.");
    assert.equal(text.slice(system.end - "<|im_end|>".length, system.end), "<|im_end|>");
    assert.equal(system.closed, true);
    assert.equal(
      text.slice(assistant.bodyStart, assistant.bodyEnd),
      "<think>\n\n</think>\n\nHello",
      "the body is the recorded text, the empty think block included",
    );
    assert.equal(open.closed, false);
    assert.equal(open.end, text.length);
    assert.equal(open.bodyEnd, text.length);
  });

  it("an open, empty assistant turn at the end is the generation prompt, not a message", () => {
    const prompt = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n";
    const chat = messagesFromText(prompt);
    assert.equal(chat.addGenerationPrompt, true);
    assert.deepEqual(chat.messages, [{ role: "user", content: "Hi" }]);
    // …but only at the very end: an empty turn followed by another is a message.
    const inner = messagesFromText("<|im_start|>assistant\n<|im_start|>user\nHi");
    assert.equal(inner.addGenerationPrompt, false);
    assert.deepEqual(inner.messages, [
      { role: "assistant", content: "" },
      { role: "user", content: "Hi" },
    ]);
    // An empty think block alone is that empty prompt with thinking off.
    const thinkOff = messagesFromText(`${prompt}<think>\n\n</think>\n\n`);
    assert.equal(thinkOff.addGenerationPrompt, true);
    // An empty user turn is a message wherever it is.
    assert.deepEqual(messagesFromText("<|im_start|>user\n").messages, [{ role: "user", content: "" }]);
  });

  it("a non-empty think block stays in the assistant's content; other roles keep a leading empty one", () => {
    const chat = messagesFromText(
      "<|im_start|>assistant\n<think>\nhmm\n</think>\n\nOK<|im_end|>\n<|im_start|>user\n<think>\n\n</think>\n\nx<|im_end|>",
    );
    assert.equal(chat.messages[0].content, "<think>\nhmm\n</think>\n\nOK");
    assert.equal(chat.messages[1].content, "<think>\n\n</think>\n\nx");
  });

  it("a run's counts: each verdict once per episode, non-canonical tokens summed, emitted specials per episode", () => {
    const counts = emptyDriftCounts();
    assert.deepEqual(counts, {
      checked: 0,
      failed: 0,
      templateDrift: 0,
      nonCanonical: 0,
      nonCanonicalTokens: 0,
      emittedSpecial: 0,
    });
    countDrift(counts, report({}));
    countDrift(counts, report({ checked: false }));
    countDrift(counts, report({ templateDriftTokens: 2, nonCanonicalTokens: 3 }));
    countDrift(counts, report({ nonCanonicalTokens: 4, emittedSpecial: [7, 9] }));
    assert.deepEqual(counts, {
      checked: 4,
      failed: 1,
      templateDrift: 1,
      nonCanonical: 2,
      nonCanonicalTokens: 7,
      emittedSpecial: 1,
    });
  });

  it("the counts' line names each finding, with plurals, and only the findings there are", () => {
    const counts = { ...emptyDriftCounts(), checked: 3, templateDrift: 1, nonCanonical: 2, nonCanonicalTokens: 5 };
    assert.equal(
      driftCountsLine(counts, 3),
      "template drift in 1 episode · non-canonical sampled tokens in 2 (5 tokens, harmless)",
    );
    assert.equal(
      driftCountsLine({ ...counts, templateDrift: 2, emittedSpecial: 1, failed: 1 }, 5),
      "template drift in 2 episodes · non-canonical sampled tokens in 2 (5 tokens, harmless)" +
        " · special tokens emitted in 1 · not checkable in 1 (3 of 5 checked)",
    );
    assert.equal(
      driftCountsLine(emptyDriftCounts(), 0),
      "template drift in 0 episodes · non-canonical sampled tokens in 0 (0 tokens, harmless)",
    );
  });

  it("the render settings come from the manifest's thinking field", () => {
    assert.deepEqual(driftSettings({ thinking: true }), { thinking: true });
    assert.deepEqual(driftSettings({ thinking: false }), { thinking: false });
  });
});
