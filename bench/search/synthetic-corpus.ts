/**
 * A deterministic synthetic corpus with Wikipedia-like statistics, calibrated on the 3,075 real
 * HotpotQA paragraphs in ../shared/data (measured: 89 words per paragraph on average, median 80,
 * p90 151; 1–6 sentences for 88% of paragraphs; 29% of words are bm25s stopwords; titles of ~3
 * words whose words recur in the text).
 *
 * Words are drawn from a Zipf–Mandelbrot (s = 1.27, q = 6) distribution over 1.5M word types: the top ranks are real
 * English function and common words, the rest pronounceable made-up words, some with inflections
 * (-s, -ed, -ing, -ly, -ation, -er) so stemming has work to do. With 507,494 paragraphs this gives
 * ~45M words and a vocabulary of the size Heaps' law extrapolates from the real sample.
 */
import { createWriteStream } from "node:fs";
import { mulberry32 } from "../../src/core/base/util/mulberry32";

/** Seeded uniform [0, 1) generator (mulberry32). */
export const rng = mulberry32;

const COMMON = (
  "the and of in is to was as by on for it with from he an his at film that first american also which has album new " +
  "series known are or one their its who born united released world were season after states two this band she her " +
  "city university national be company all been based song south most second a had not but when they game team school " +
  "other music where during years three north used since state war later name river town village people between time " +
  "over such into only then these there will if no part group record station county member won year best" +
  " singer book played under west east high league club located area than more may him them"
).split(" ");

const ONSETS = [
  "b",
  "c",
  "d",
  "f",
  "g",
  "h",
  "j",
  "k",
  "l",
  "m",
  "n",
  "p",
  "r",
  "s",
  "t",
  "v",
  "w",
  "z",
  "br",
  "ch",
  "cl",
  "dr",
  "fr",
  "gr",
  "kr",
  "pl",
  "pr",
  "sh",
  "st",
  "th",
  "tr",
  "sk",
];
const NUCLEI = ["a", "e", "i", "o", "u", "ai", "ea", "ou", "io", "y", "ee", "oa"];
const CODAS = ["", "", "", "n", "r", "l", "s", "t", "m", "nd", "rt", "st", "ck", "x", "ng"];
const SUFFIXES = ["s", "ed", "ing", "ly", "ation", "er", "ness", "ism"];

export interface SyntheticOptions {
  docs: number;
  seed?: number;
  vocabulary?: number;
  zipf?: number;
}

export class SyntheticCorpus {
  readonly words: string[];
  private readonly cdf: Float64Array;
  private readonly random: () => number;

  constructor(readonly options: SyntheticOptions) {
    const vocabulary = options.vocabulary ?? 1_500_000;
    const s = options.zipf ?? 1.27;
    this.random = rng(options.seed ?? 20261129);
    const wordRandom = rng(7);
    const seen = new Set<string>(COMMON);
    this.words = [...COMMON];
    while (this.words.length < vocabulary) {
      const syllables = 1 + Math.floor(wordRandom() * 2.6);
      let w = "";
      for (let i = 0; i < syllables; i++) {
        w += pick(ONSETS, wordRandom) + pick(NUCLEI, wordRandom) + pick(CODAS, wordRandom);
      }
      if (wordRandom() < 0.2) w += pick(SUFFIXES, wordRandom);
      if (w.length < 2 || seen.has(w)) continue;
      seen.add(w);
      this.words.push(w);
    }
    this.cdf = new Float64Array(vocabulary);
    let total = 0;
    for (let r = 0; r < vocabulary; r++) {
      total += 1 / Math.pow(r + 1 + 6, s); // Zipf–Mandelbrot: a flatter head, as in real text
      this.cdf[r] = total;
    }
    for (let r = 0; r < vocabulary; r++) this.cdf[r] /= total;
  }

  /** A word rank drawn from the Zipf distribution. */
  rank(): number {
    const u = this.random();
    let lo = 0;
    let hi = this.cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  word(): string {
    return this.words[this.rank()];
  }

  /** A mid-frequency word (title and topic words are names and subjects, not "the"). */
  topicWord(): string {
    for (;;) {
      const r = this.rank();
      if (r >= 300) return this.words[r];
      if (this.random() < 0.02) return this.words[300 + Math.floor(this.random() * 200_000)];
    }
  }

  next(): number {
    return this.random();
  }

  paragraph(id: number): { id: number; title: string; text: string } {
    const r = this.random;
    const titleWords = 1 + Math.floor(r() * 4.2);
    const topic: string[] = [];
    for (let i = 0; i < titleWords; i++) topic.push(this.topicWord());
    const title = topic.map(capitalize).join(" ") + (r() < 0.1 ? ` (${this.topicWord()})` : "");
    const sentences = pickSentenceCount(r);
    const parts: string[] = [];
    for (let s = 0; s < sentences; s++) {
      // Sentence lengths: lognormal around 20 words, like the real sample.
      const len = Math.max(4, Math.round(Math.exp(Math.log(19) + 0.5 * gaussian(r))));
      const words: string[] = [];
      for (let i = 0; i < len; i++) {
        const u = r();
        if (u < 0.06) words.push(capitalize(pick(topic, r)));
        else if (u < 0.09) words.push(String(1800 + Math.floor(r() * 225)));
        else {
          const w = this.word();
          words.push(r() < 0.08 ? capitalize(w) : w);
        }
      }
      words[0] = capitalize(words[0]);
      parts.push(words.join(" ") + ".");
    }
    return { id, title, text: parts.join(" ") };
  }

  /** Streams `docs` paragraphs as corpus.jsonl; returns the paragraphs whose ids are in `keep`. */
  async write(file: string, keep: ReadonlySet<number>): Promise<Map<number, Paragraph>> {
    const kept = new Map<number, Paragraph>();
    const out = createWriteStream(file);
    for (let i = 0; i < this.options.docs; i++) {
      const p = this.paragraph(i);
      if (keep.has(i)) kept.set(i, p);
      if (!out.write(JSON.stringify(p) + "\n")) await new Promise<void>((res) => out.once("drain", () => res()));
    }
    await new Promise<void>((res, rej) => out.end((e?: Error | null) => (e ? rej(e) : res())));
    return kept;
  }
}

export interface Paragraph {
  id: number;
  title: string;
  text: string;
}

const SENTENCE_WEIGHTS = [0, 142, 325, 418, 390, 300, 176, 91, 48, 42, 60]; // real histogram, 10 = "10+"

function pickSentenceCount(r: () => number): number {
  const total = SENTENCE_WEIGHTS.reduce((a, b) => a + b, 0);
  let u = r() * total;
  for (let n = 1; n < SENTENCE_WEIGHTS.length; n++) {
    u -= SENTENCE_WEIGHTS[n];
    if (u <= 0) return n === 10 ? 10 + Math.floor(r() * 4) : n;
  }
  return 3;
}

function pick<T>(list: readonly T[], r: () => number): T {
  return list[Math.floor(r() * list.length)];
}

function capitalize(w: string): string {
  return w.charAt(0).toUpperCase() + w.slice(1);
}

function gaussian(r: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
}

const QUESTION_STARTS = [
  "What is the",
  "Which",
  "Who was the",
  "In which year did the",
  "What year was the",
  "Where is the",
  "How many",
  "Are",
  "When was the",
];

/** Paragraph ids the queries are written from (chosen before the corpus is written). */
export function queryParagraphIds(docs: number, count: number, seed = 99): Set<number> {
  const r = rng(seed);
  const ids = new Set<number>();
  while (ids.size < Math.min(docs, 3 * count)) ids.add(Math.floor(r() * docs));
  return ids;
}

/**
 * Queries: short ones (3–8 words: title words plus a few words of the paragraph) and long,
 * question-like ones (12–20 words mixing function words with content words of two paragraphs,
 * like a multi-hop question).
 */
export function makeQueries(
  paragraphs: Map<number, Paragraph>,
  count: number,
  seed = 101,
): { short: string[]; long: string[] } {
  const r = rng(seed);
  const pool = [...paragraphs.values()].map((p) => ({
    title: p.title.split(/[\s()]+/).filter(Boolean),
    text: p.text.replace(/\./g, "").split(" "),
  }));
  const sample = () => pool[Math.floor(r() * pool.length)];
  const short: string[] = [];
  const long: string[] = [];
  for (let i = 0; i < count; i++) {
    const a = sample();
    const n = 3 + Math.floor(r() * 6);
    const words = a.title.slice(0, Math.min(a.title.length, n - 1));
    while (words.length < n) words.push(pick(a.text, r));
    short.push(words.join(" "));
  }
  for (let i = 0; i < count; i++) {
    const a = sample();
    const b = sample();
    const n = 12 + Math.floor(r() * 9);
    const words = pick(QUESTION_STARTS, r).split(" ");
    words.push(...a.title);
    while (words.length < n) {
      const u = r();
      if (u < 0.3) words.push(pick(COMMON.slice(0, 40), r));
      else if (u < 0.75) words.push(pick(a.text, r));
      else words.push(pick(b.text, r));
    }
    long.push(words.slice(0, n).join(" ") + "?");
  }
  return { short, long };
}
