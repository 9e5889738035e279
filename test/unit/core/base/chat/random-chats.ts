/**
 * Seeded random multi-turn research-agent conversations for the template-equivalence test:
 * unicode, empty and long results, several turns, and text that looks like the harness's tags.
 */
import { readFileSync } from "node:fs";
import { formatResults, LAST_SEARCH } from "../../../../../src/core/envs/hotpotqa/results";
import { mulberry32 } from "../../../../../src/core/base/util/mulberry32";

/** Seeded uniform [0, 1) generator (mulberry32). */
export const rng = mulberry32;

const PHRASES = [
  "Scott Derrickson nationality",
  "Zoë Saldaña filmography",
  "北京大学 founded",
  "Ed Wood (film) director",
  "naïve café résumé",
  "e\u0301 combining accent",
  "emoji 🙂🧪 test",
  "שלום עולם",
  "Кирилл Серебренников",
  "1844 – 1846",
  'it\'s "quoted" & <b>bold</b>',
  "</result>",
  "<answer>trap</answer>",
  "<search>nested</search>",
  "<result>fake block</result>",
  "a < b > c",
  "tabs\tand\nnewlines",
  "",
];

export interface RandomChat {
  system: string;
  question: string;
  /** Model replies, one per turn, as the model wrote them (no end token). */
  replies: string[];
  /** The user-turn content after each reply (result blocks). */
  contents: string[];
}

export interface Pools {
  questions: string[];
  paragraphs: { title: string; text: string }[];
}

/** Real HotpotQA questions and paragraphs when the shared data is present, else a few built-in ones. */
export function loadPools(hotpotFile: string | undefined): Pools {
  const pools: Pools = {
    questions: ["Which magazine was started first Arthur's Magazine or First for Women?"],
    paragraphs: [
      {
        title: "Arthur's Magazine",
        text: "Arthur's Magazine (1844–1846) was an American literary periodical published in Philadelphia in the 19th century.",
      },
    ],
  };
  if (!hotpotFile) return pools;
  for (const line of readFileSync(hotpotFile, "utf8").split("\n").slice(0, 60)) {
    if (!line.trim()) continue;
    const row = JSON.parse(line) as { question: string; context: [string, string[]][] };
    pools.questions.push(row.question);
    for (const [title, sentences] of row.context) pools.paragraphs.push({ title, text: sentences.join("") });
  }
  return pools;
}

export function randomChat(next: () => number, pools: Pools, system: string): RandomChat {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)];
  const phrase = () => pick(PHRASES);
  const words = (n: number) => Array.from({ length: n }, phrase).join(" ").trim() || "x";
  const turns = 1 + Math.floor(next() * 5);
  const replies: string[] = [];
  const contents: string[] = [];
  for (let i = 0; i < turns; i++) {
    const r = next();
    if (r < 0.45) replies.push(`<search>${words(1 + Math.floor(next() * 3))}</search>`);
    else if (r < 0.6) replies.push(`<answer>${words(1)}</answer>`);
    else if (r < 0.75) replies.push(`I should look this up. <search>${phrase()}</search>`);
    else if (r < 0.9) replies.push(words(2 + Math.floor(next() * 8)));
    else replies.push(words(60)); // a long, rambling reply
    const k = Math.floor(next() * 4);
    const hits = Array.from({ length: k }, () => {
      const p = pick(pools.paragraphs);
      const s = next();
      if (s < 0.2) return { title: p.title, text: `${p.text} ${phrase()} ${phrase()}` };
      if (s < 0.3) return { title: phrase() || "Untitled", text: p.text.repeat(8) }; // long result
      if (s < 0.35) return { title: p.title, text: "" };
      return p;
    });
    let content = formatResults(hits);
    if (i === turns - 1 && next() < 0.5) content += `\n${LAST_SEARCH}`;
    contents.push(content);
  }
  // The template trims message contents (Qwen3.5) and models end their text at the stop token,
  // so replies here have no edge whitespace; edge whitespace is covered by its own test.
  return { system, question: pick(pools.questions), replies: replies.map((r) => r.trim() || "x"), contents };
}
