/**
 * A scripted policy that plays the agent honestly, for the offline demo and CLI tests: it never
 * sees the gold answer. It reads the conversation (decoded from the prompt tokens, exactly what a
 * model would get), searches the question, then searches names it found in the results, and
 * answers with a span a simple rule pulls out of the paragraphs it retrieved. When a rule fails
 * (a paragraph phrased in a way it does not read, a search that missed) it answers wrong, like a
 * weak model would. Closed-book (a system prompt with no <search> action) it can only guess.
 */
import type { ChatTokenizer } from "../../base/chat/tokenizer";
import type { Policy, PolicyInfo, Sample, SampleOptions } from "../../harness/policy";

export interface HeuristicPolicyOptions {
  /** Sleep this long per turn: makes a run last long enough to watch (or to kill in a test). */
  delayMs?: number;
}

/** The conversation as the reader sees it. */
interface Transcript {
  system: string;
  question: string;
  /** Paragraphs returned so far, by title. */
  paragraphs: Map<string, string>;
  /** Queries it already sent. */
  searches: string[];
}

type Rule = (q: string, r: Reader) => string | undefined;

/** Looks paragraphs up by title and remembers the first one it wanted but did not have. */
class Reader {
  pending: string | undefined;
  constructor(private readonly t: Transcript) {}
  paragraph(title: string): string | undefined {
    const text = this.t.paragraphs.get(title);
    if (text === undefined && this.pending === undefined && !this.t.searches.includes(title)) this.pending = title;
    return text;
  }
}

const NAME = "([A-Z][a-z]+ [A-Z][a-z]+)";
const WORD = "([A-Z][a-z]+)";
const year = (text: string | undefined) => (text ? /\b(\d{4})\b/.exec(text)?.[1] : undefined);
const bornIn = (text: string | undefined) => (text ? new RegExp(`born in ${WORD}`).exec(text)?.[1] : undefined);
const bornYear = (text: string | undefined) => (text ? /\(born (\d{4})\)/.exec(text)?.[1] : undefined);
/** "founded … by [the chemist] Name": the phrasings the reader understands. */
const founder = (text: string | undefined) =>
  text ? new RegExp(`founded (?:in \\d{4} )?by (?:the [a-z]+ )?${NAME}`).exec(text)?.[1] : undefined;
/** What a confused reader answers when it cannot find the founder: the town the company is in. */
const companyTown = (text: string | undefined) => (text ? new RegExp(`based in ${WORD}`).exec(text)?.[1] : undefined);

/** The one shape whose answer is a word of the reader's own ("yes"/"no"), not a span of a paragraph. */
const YES_NO_QUESTION = /^Were (.+) and (.+) born in the same town(?:, yes or no)?\?$/;

const RULES: [RegExp, (m: RegExpExecArray) => Rule][] = [
  [
    /^Where was the founder of (.+) born\?$/,
    (m) => (_q, r) => {
      const company = r.paragraph(m[1]);
      if (!company) return undefined;
      const who = founder(company);
      return who ? bornIn(r.paragraph(who)) : companyTown(company);
    },
  ],
  [
    /^In what year was the founder of (.+) born\?$/,
    (m) => (_q, r) => {
      const company = r.paragraph(m[1]);
      if (!company) return undefined;
      const who = founder(company);
      return who ? bornYear(r.paragraph(who)) : year(company);
    },
  ],
  [
    /^In which country was the [a-z]+ (.+) born\?$/,
    (m) => (_q, r) => {
      const town = bornIn(r.paragraph(m[1]));
      const text = town ? r.paragraph(town) : undefined;
      return text ? new RegExp(`is a town in ${WORD}`).exec(text)?.[1] : undefined;
    },
  ],
  [
    /^Which company was founded first, (.+) or (.+)\?$/,
    (m) => (_q, r) => {
      const a = year(r.paragraph(m[1]));
      const b = year(r.paragraph(m[2]));
      return a && b ? (Number(a) <= Number(b) ? m[1] : m[2]) : undefined;
    },
  ],
  [
    /^Who was born earlier, (.+) or (.+)\?$/,
    (m) => (_q, r) => {
      const a = bornYear(r.paragraph(m[1]));
      const b = bornYear(r.paragraph(m[2]));
      return a && b ? (Number(a) <= Number(b) ? m[1] : m[2]) : undefined;
    },
  ],
  [
    YES_NO_QUESTION,
    (m) => (_q, r) => {
      const a = bornIn(r.paragraph(m[1]));
      const b = bornIn(r.paragraph(m[2]));
      return a && b ? (a === b ? "yes" : "no") : undefined;
    },
  ],
];

export interface ReplyOptions {
  /** Read yes/no questions (default true); false: a span reader, which answers them with a title like any shape it has no rule for. */
  yesNo?: boolean;
}

/** The next reply for a conversation: one <search> or one <answer>. */
export function heuristicReply(t: Transcript, options: ReplyOptions = {}): string {
  const q = t.question.trim();
  const choice = /, (.+) or (.+)\?$/.exec(q);
  const guess = /^(Were|Was|Is|Are|Did|Do|Does) /.test(q) ? "no" : choice ? choice[1] : "unknown";
  if (!t.system.includes("<search>")) return `<answer>${guess}</answer>`;
  if (t.searches.length === 0) return `<search>${q}</search>`;
  const reader = new Reader(t);
  for (const [pattern, make] of RULES) {
    if (options.yesNo === false && pattern === YES_NO_QUESTION) continue;
    const m = pattern.exec(q);
    if (!m) continue;
    const answer = make(m)(q, reader);
    if (answer) return `<answer>${answer}</answer>`;
    if (reader.pending) return `<search>${reader.pending}</search>`;
    return `<answer>${guess}</answer>`;
  }
  // A question shape it has no rule for: answer with the best paragraph's title.
  const first = t.paragraphs.keys().next();
  return `<answer>${first.done ? guess : first.value}</answer>`;
}

/** Splits the decoded chat into its messages and the facts the reader uses. */
export function parseTranscript(text: string): Transcript {
  const messages = [...text.matchAll(/<\|im_start\|>(system|user|assistant)\n([\s\S]*?)(?=<\|im_end\|>|$)/g)].map(
    (m) => ({ role: m[1], content: m[2] }),
  );
  const system = messages.find((m) => m.role === "system")?.content ?? "";
  const users = messages.filter((m) => m.role === "user");
  const paragraphs = new Map<string, string>();
  for (const u of users.slice(1)) {
    for (const p of u.content.matchAll(/^\[([^\]\n]+)\] (.*)$/gm))
      if (!paragraphs.has(p[1])) paragraphs.set(p[1], p[2]);
  }
  const searches = messages
    .filter((m) => m.role === "assistant")
    .map((m) => /<search>([\s\S]*?)<\/search>/.exec(m.content)?.[1].trim())
    .filter((s): s is string => s !== undefined);
  return { system, question: users[0]?.content ?? "", paragraphs, searches };
}

export class HeuristicPolicy implements Policy {
  readonly endToken: number;

  constructor(
    readonly tokenizer: ChatTokenizer,
    private readonly options: HeuristicPolicyOptions = {},
  ) {
    this.endToken = tokenizer.tokenId("<|im_end|>");
  }

  async sample(promptTokens: readonly number[], options: SampleOptions): Promise<Sample> {
    if (this.options.delayMs) await sleep(this.options.delayMs, options.signal);
    const reply = heuristicReply(parseTranscript(this.tokenizer.decode(promptTokens)));
    const tokens = [...this.tokenizer.encode(reply), this.endToken];
    if (tokens.length > options.maxTokens)
      return { tokens: tokens.slice(0, options.maxTokens), logprobs: null, stopReason: "length" };
    return { tokens, logprobs: null, stopReason: "stop" };
  }

  describe(): PolicyInfo {
    return { kind: "scripted", model: "heuristic-reader", logprobs: false };
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
