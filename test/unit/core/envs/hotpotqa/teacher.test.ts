/**
 * The offline pipeline's teacher and world: every token the teacher writes inside an action can be
 * copied from the context (question or retrieved paragraph), while encoding the reply as one string
 * would produce ids the context never holds; and the compact world's names are one token per word.
 */
import { strict as assert } from "node:assert";
import { offlineTokenizer } from "../../../../../src/core/base/chat";
import type { ChatTokenizer } from "../../../../../src/core/base/chat/tokenizer";
import { chatPrompt, userTurn } from "../../../../../src/core/base/chat/turns";
import { heuristicReply, parseTranscript } from "../../../../../src/core/envs/hotpotqa/heuristic-policy";
import { generateSyntheticHotpot } from "../../../../../src/core/envs/hotpotqa/synthetic-world";
import { parseAction } from "../../../../../src/core/envs/hotpotqa/actions";
import { formatResults } from "../../../../../src/core/envs/hotpotqa/results";
import { TeacherPolicy, teacherReplyTokens } from "../../../../../src/core/envs/hotpotqa/teacher";

describe("core/steps/pipeline teacher and compact world", function () {
  this.timeout(60_000);
  let tok: ChatTokenizer;
  before(async () => {
    tok = await offlineTokenizer("qwen3");
  });

  const inner = (ids: number[], end: number) => {
    // Drop the tag tokens: what lies between ">" and "</".
    const text = ids.map((i) => tok.decode([i]));
    const open = text.indexOf(">");
    const close = text.indexOf("</");
    return ids.slice(open + 1, close >= 0 ? close : ids.indexOf(end));
  };

  it("writes action contents with the token ids the context holds; a one-string encoding does not", () => {
    const end = tok.tokenId("<|im_end|>");
    const paragraph =
      "Zorbex Works is a glassware company based in Gronthholt. It was founded in 1901 by Theirex Keiboun.";
    const context = [
      ...chatPrompt(tok, "S", "Where was the founder of Zorbex Works born?"),
      ...userTurn(tok, formatResults([{ title: "Zorbex Works", text: paragraph }])),
    ];
    const has = (ids: number[]) => ids.every((i) => context.includes(i));
    for (const reply of [
      "<answer>Gronthholt</answer>",
      "<search>Theirex Keiboun</search>",
      "<search>Where was the founder of Zorbex Works born?</search>",
    ]) {
      const ids = teacherReplyTokens(tok, reply, "Where was the founder of Zorbex Works born?", end);
      assert.equal(ids.at(-1), end);
      assert.ok(has(inner(ids, end)), `${reply}: ${inner(ids, end).map((i) => tok.decode([i]))}`);
      // Same action after the harness decodes and parses the reply.
      assert.deepEqual(parseAction(tok.decode(ids, { skipSpecialTokens: true })), parseAction(reply));
    }
    // The plain encoding glues ">" to the name's first letters: an id no copy head could produce.
    const naive = tok.encode("<answer>Gronthholt</answer>");
    const tagIds = new Set([...tok.encode("<answer>"), ...tok.encode("</answer>")]);
    assert.ok(
      naive.some((i) => !tagIds.has(i) && !context.includes(i)),
      naive.map((i) => tok.decode([i])).join("|"),
    );
  });

  it("TeacherPolicy answers a compact-world question from the transcript, never from the gold", async () => {
    const world = generateSyntheticHotpot({ seed: 3, train: 6, dev: 0, style: "compact" });
    const q = world.train.find((r) => r.question.startsWith("Where was the founder"))!;
    const teacher = new TeacherPolicy(tok);
    const prompt = chatPrompt(tok, "Reply with <search>words</search> or <answer>answer</answer>.", q.question);
    const first = await teacher.sample(prompt, { temperature: 0, maxTokens: 64 });
    assert.equal(first.stopReason, "stop");
    assert.deepEqual(parseAction(tok.decode(first.tokens, { skipSpecialTokens: true })), {
      kind: "search",
      query: q.question,
    });
    const cut = await teacher.sample(prompt, { temperature: 0, maxTokens: 3 });
    assert.equal(cut.stopReason, "length");
    assert.equal(cut.tokens.length, 3);
  });

  it("yes/no questions: the compact world's name both answers, copyable; the teacher answers them with a title, the reader with yes/no", async () => {
    const world = generateSyntheticHotpot({ seed: 3, train: 60, dev: 0, style: "compact" });
    const yesNo = world.train.filter((r) => r.answer === "yes" || r.answer === "no");
    assert.ok(
      yesNo.length >= 5 && yesNo.every((r) => r.question.endsWith(", yes or no?")),
      yesNo.map((r) => r.question).join(" | "),
    );
    // The answer's token (with its leading space, as the teacher and a copy head write it) is in the question.
    for (const word of ["yes", "no"])
      assert.ok(tok.encode(yesNo[0].question).includes(tok.encode(` ${word}`)[0]), word);

    const end = tok.tokenId("<|im_end|>");
    const q = yesNo[0];
    const paragraphs = q.supporting_facts.map(([title]) => q.context.find(([t]) => t === title)!);
    let prompt = chatPrompt(tok, "Reply with <search>words</search> or <answer>answer</answer>.", q.question);
    for (const [title, sentences] of paragraphs) {
      prompt = [
        ...prompt,
        ...tok.encode(`<search>${title}</search>`),
        end,
        ...userTurn(tok, formatResults([{ title, text: sentences.join("") }])),
      ];
    }
    const transcript = parseTranscript(tok.decode(prompt));
    assert.equal(
      heuristicReply(transcript),
      `<answer>${q.answer}</answer>`,
      "the demo's reader reads yes/no questions",
    );
    const reply = await new TeacherPolicy(tok).sample(prompt, { temperature: 0, maxTokens: 64 });
    const action = parseAction(tok.decode(reply.tokens, { skipSpecialTokens: true }));
    assert.equal(action.kind, "answer");
    assert.ok(action.kind === "answer" && paragraphs.some(([title]) => title === action.text), JSON.stringify(action));
  });

  it("moved-to questions (compact only): the answer is in the one supporting paragraph, and no reader rule answers it", async () => {
    const world = generateSyntheticHotpot({ seed: 3, train: 70, dev: 0, style: "compact" });
    const moved = world.train.filter((r) => r.question.startsWith("Which town did the "));
    assert.ok(moved.length >= 5, `${moved.length} moved-to questions`);
    assert.ok(
      !generateSyntheticHotpot({ seed: 3, train: 70, dev: 0 }).train.some((r) =>
        r.question.startsWith("Which town did the "),
      ),
      "the default style is unchanged",
    );
    const q = moved[0];
    const [title, sentences] = q.context.find(([t]) => t === q.supporting_facts[0][0])!;
    assert.match(sentences.join(""), new RegExp(`moved to ${q.answer}\\.`));
    const end = tok.tokenId("<|im_end|>");
    const prompt = [
      ...chatPrompt(tok, "Reply with <search>words</search> or <answer>answer</answer>.", q.question),
      ...tok.encode(`<search>${q.question}</search>`),
      end,
      ...userTurn(tok, formatResults([{ title, text: sentences.join("") }])),
    ];
    assert.equal(
      heuristicReply(parseTranscript(tok.decode(prompt))),
      `<answer>${title}</answer>`,
      "a shape without a rule: the first title",
    );
    const reply = await new TeacherPolicy(tok).sample(prompt, { temperature: 0, maxTokens: 64 });
    assert.deepEqual(parseAction(tok.decode(reply.tokens, { skipSpecialTokens: true })), {
      kind: "answer",
      text: title,
    });
  });

  it("compact world: one token per name word, no year questions, deterministic; the default style is unchanged", () => {
    const a = generateSyntheticHotpot({ seed: 11, train: 120, dev: 60, style: "compact" });
    assert.deepEqual(a, generateSyntheticHotpot({ seed: 11, train: 120, dev: 60, style: "compact" }));
    assert.equal(a.train.length, 120);
    assert.equal(a.dev.length, 60);
    const titles = new Set([...a.train, ...a.dev].flatMap((r) => r.context.map((c) => c[0])));
    for (const title of titles) {
      for (const word of title.split(" "))
        assert.equal(tok.encode(` ${word}`).length, 1, `"${word}" of "${title}" is several tokens`);
    }
    assert.ok(![...a.train, ...a.dev].some((r) => /In what year/.test(r.question)));
    const kinds = new Set(a.train.map((r) => r.question.split(" ").slice(0, 2).join(" ")));
    assert.ok(kinds.size >= 5, [...kinds].join(", "));

    const d = generateSyntheticHotpot({ seed: 11, train: 120, dev: 60 });
    assert.ok(d.train.some((r) => /In what year/.test(r.question)));
    assert.ok([...d.train].some((r) => r.context.some((c) => tok.encode(` ${c[0].split(" ")[0]}`).length > 1)));
  });
});
