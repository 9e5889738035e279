/**
 * The scripted teacher the offline pipeline distils the arithmetic world's SFT data from: it reads
 * the last user turn of the prompt (the problem, before GSM8K's " Write your answer in \boxed{}
 * format."), finds the variable the question asks for, and boxes that variable as the problem
 * writes it (" p=\$52" → `\boxed{ p=\$52}`), which GSM8K's grader reads as 52. It never sees the
 * reference answer. Every token of the reply is one the context holds (the variable with its
 * leading space, its mark, one token per digit), so a copy head can reproduce it: the variable after
 * the question's "What is", then what follows that variable in the problem.
 *
 * It has no rule for the price asked in words ("How many dollars did the pens cost?", naming no
 * variable): it boxes the count there (wrong, so the SFT filter drops it), and the SFT traces hold
 * no such question.
 */
import type { ChatTokenizer } from "../../base/chat/tokenizer";
import type { Policy, PolicyInfo, Sample, SampleOptions } from "../../harness/policy";
import { QUESTION_SUFFIX } from "./prompt";
import { worldKind, worldNumbers, writtenNumber } from "./world";

/** The problem of a rendered GSM8K prompt: its last user turn without the suffix. */
export function lastQuestion(promptText: string): string {
  const users = [...promptText.matchAll(/<\|im_start\|>user\n([\s\S]*?)(?=<\|im_end\|>|$)/g)].map((m) => m[1]);
  const last = users[users.length - 1] ?? "";
  return last.endsWith(QUESTION_SUFFIX) ? last.slice(0, -QUESTION_SUFFIX.length) : last;
}

/** The teacher's reply for one problem (see the header: the price asked in words gets the count). */
export function teacherAnswer(question: string): string {
  const numbers = worldNumbers(question);
  const kind = worldKind(question);
  if (!numbers || !kind) return "\\boxed{0}";
  // No rule for the price asked in words: it boxes the count.
  const known = kind === "dollars" ? "count" : kind;
  return `\\boxed{ ${writtenNumber(known, numbers[known])}}`;
}

export class ArithmeticTeacher implements Policy {
  readonly endToken: number;

  constructor(readonly tokenizer: ChatTokenizer) {
    this.endToken = tokenizer.tokenId("<|im_end|>");
  }

  async sample(promptTokens: readonly number[], options: SampleOptions): Promise<Sample> {
    const reply = teacherAnswer(lastQuestion(this.tokenizer.decode(promptTokens)));
    const tokens = [...this.tokenizer.encode(reply), this.endToken];
    if (tokens.length > options.maxTokens)
      return { tokens: tokens.slice(0, options.maxTokens), logprobs: null, stopReason: "length" };
    return { tokens, logprobs: null, stopReason: "stop" };
  }

  describe(): PolicyInfo {
    return { kind: "scripted", model: "arithmetic-teacher", logprobs: false };
  }
}
