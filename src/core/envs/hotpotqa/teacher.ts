/**
 * The scripted teacher the offline pipeline collects SFT data from: the honest heuristic reader
 * (it never sees the gold answer), with one change that matters to a model that learns by copying.
 *
 * BPE gives a word different token ids with and without a leading space, and glues punctuation to
 * neighbours ("<answer>Gron…" encodes its first letters as ">G"). A reply encoded as one string
 * would therefore hold token ids that appear nowhere in the question or the search results, and a
 * copy head could never produce them. The teacher writes the same text, but tokenizes the action
 * tag and its content separately, with the content encoded the way it appears in the context: the
 * question verbatim (it opens a user turn, no leading space), names from paragraphs with their
 * leading space. The decoded reply still parses to the same action (contents are trimmed), and the
 * harness records exactly these tokens, so the student learns in the environment it is scored in.
 *
 * It reads spans only: it has no rule for yes/no questions and answers them with a paragraph's
 * title, which the SFT filter drops. So the SFT traces show no yes/no answer at all, and what the
 * GRPO stage adds on top of imitation can be measured on a kind imitation never saw (the report's
 * per-kind line).
 */
import type { ChatTokenizer } from "../../base/chat/tokenizer";
import type { Policy, PolicyInfo, Sample, SampleOptions } from "../../harness/policy";
import { heuristicReply, parseTranscript } from "./heuristic-policy";

/** Token ids of one action reply, tag and content encoded apart (see the header). */
export function teacherReplyTokens(tok: ChatTokenizer, reply: string, question: string, endToken: number): number[] {
  const m = /^<(search|answer)>([\s\S]*)<\/(search|answer)>$/.exec(reply);
  if (!m) return [...tok.encode(reply), endToken];
  const tag = m[1];
  const content = m[2].trim();
  const contentIds = content === question.trim() ? tok.encode(content) : tok.encode(` ${content}`);
  return [...tok.encode(`<${tag}>`), ...contentIds, ...tok.encode(`</${tag}>`), endToken];
}

export class TeacherPolicy implements Policy {
  readonly endToken: number;

  constructor(readonly tokenizer: ChatTokenizer) {
    this.endToken = tokenizer.tokenId("<|im_end|>");
  }

  async sample(promptTokens: readonly number[], options: SampleOptions): Promise<Sample> {
    const transcript = parseTranscript(this.tokenizer.decode(promptTokens));
    const reply = heuristicReply(transcript, { yesNo: false });
    const tokens = teacherReplyTokens(this.tokenizer, reply, transcript.question, this.endToken);
    if (tokens.length > options.maxTokens)
      return { tokens: tokens.slice(0, options.maxTokens), logprobs: null, stopReason: "length" };
    return { tokens, logprobs: null, stopReason: "stop" };
  }

  describe(): PolicyInfo {
    return { kind: "scripted", model: "heuristic-teacher", logprobs: false };
  }
}
