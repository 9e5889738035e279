/**
 * A deterministic synthetic corpus with Wikipedia-like statistics, calibrated on the 3,075 real
 * HotpotQA paragraphs in ../shared/data (measured: 89 words per paragraph on average, median 80,
 * p90 151; 1–6 sentences for 88% of paragraphs; 29% of words are bm25s stopwords; titles of ~3
 * words whose words recur in the text).
 *
 * Words are drawn from a Zipf–Mandelbrot (s = 1.27, q = 6) distribution over `vocabulary` word types
 * (1.5M by default): the top ranks are real English function and common words, the rest pronounceable
 * made-up words, some with inflections (-s, -ed, -ing, -ly, -ation, -er) so stemming has work to do.
 * How many types a corpus of a given size shows follows from the vocabulary: scales.ts picks it per
 * scale so that the corpus's word types follow Heaps' law as fitted on the real sample.
 *
 * Two shapes: "abstracts" (one paragraph per title, the real sample's lengths: HotpotQA's
 * Wikipedia abstracts) and "passages" (wiki-18 / DPR: each article cut into consecutive 100-word
 * passages that share its title, the last one shorter).
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

/** "abstracts": one paragraph per title (HotpotQA's abstracts); "passages": wiki-18's 100-word passages. */
export type CorpusShape = "abstracts" | "passages";

/** wiki-18 (DPR) passages are 100 whitespace-separated words of an article, the article's last one shorter. */
export const PASSAGE_WORDS = 100;

export interface SyntheticOptions {
  docs: number;
  seed?: number;
  vocabulary?: number;
  zipf?: number;
  shape?: CorpusShape;
}

/** What a written corpus holds, counted while writing (the Heaps' law check of scales.ts). */
export interface CorpusStats {
  docs: number;
  /** Whitespace-separated words of titles and texts. */
  words: number;
  /** Distinct words, case folded (the made-up words are all distinct strings, so: distinct ranks and numbers). */
  types: number;
}

/** Numbers drawn as words: years 1800–2024. */
const YEARS = 225;

export class SyntheticCorpus {
  readonly words: string[];
  private readonly cdf: Float64Array;
  /** guide[j] = the first rank whose cdf reaches j / guide size: a draw searches one bucket, not the whole cdf. */
  private readonly guide: Int32Array;
  private readonly random: () => number;
  /** Which ranks (and, after them, which years) have been drawn: the corpus's word types. */
  private readonly drawn: Uint8Array;
  private wordCount = 0;
  /** Passages: the words of the current article not yet written, and its title and topic. */
  private article: { title: string; topic: string[]; pending: string[]; left: number } | undefined;

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
    this.guide = new Int32Array(vocabulary + 1);
    for (let j = 0, r = 0; j <= vocabulary; j++) {
      while (r < vocabulary - 1 && this.cdf[r] < j / vocabulary) r++;
      this.guide[j] = r;
    }
    this.drawn = new Uint8Array(vocabulary + YEARS);
  }

  /**
   * A word rank drawn from the Zipf distribution: the first rank whose cdf reaches a uniform draw
   * (the same rank a binary search over the whole cdf finds, so a seed gives the same corpus).
   */
  rank(): number {
    const u = this.random();
    const last = this.cdf.length - 1;
    const j = Math.floor(u * this.cdf.length);
    let lo = this.guide[j];
    let hi = this.guide[j + 1];
    if ((lo > 0 && this.cdf[lo - 1] >= u) || this.cdf[hi] < u) {
      lo = 0; // rounding put u outside its bucket: search everything
      hi = last;
    }
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    this.drawn[lo] = 1;
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
      if (this.random() < 0.02) {
        const rank = 300 + Math.floor(this.random() * 200_000);
        this.drawn[rank] = 1;
        return this.words[rank];
      }
    }
  }

  next(): number {
    return this.random();
  }

  /** A title of 1–5 topic words (a tenth with a parenthesised qualifier) and the topic it is made of. */
  private title(): { title: string; topic: string[] } {
    const r = this.random;
    const titleWords = 1 + Math.floor(r() * 4.2);
    const topic: string[] = [];
    for (let i = 0; i < titleWords; i++) topic.push(this.topicWord());
    const title = topic.map(capitalize).join(" ") + (r() < 0.1 ? ` (${this.topicWord()})` : "");
    return { title, topic };
  }

  /** One sentence about `topic`, its words without the final full stop. */
  private sentence(topic: string[]): string[] {
    const r = this.random;
    // Sentence lengths: lognormal around 20 words, like the real sample.
    const len = Math.max(4, Math.round(Math.exp(Math.log(19) + 0.5 * gaussian(r))));
    const words: string[] = [];
    for (let i = 0; i < len; i++) {
      const u = r();
      if (u < 0.06) words.push(capitalize(pick(topic, r)));
      else if (u < 0.09) {
        const year = Math.floor(r() * YEARS);
        this.drawn[this.cdf.length + year] = 1;
        words.push(String(1800 + year));
      } else {
        const w = this.word();
        words.push(r() < 0.08 ? capitalize(w) : w);
      }
    }
    words[0] = capitalize(words[0]);
    return words;
  }

  paragraph(id: number): Paragraph {
    const { title, topic } = this.title();
    const sentences = pickSentenceCount(this.random);
    const parts: string[] = [];
    for (let s = 0; s < sentences; s++) parts.push(this.sentence(topic).join(" ") + ".");
    return { id, title, text: parts.join(" ") };
  }

  /**
   * The next wiki-18 passage: the next 100 words of the current article (a new one when it is used
   * up), sentences cut where the 100 words end, as DPR cut them. Article lengths are lognormal around
   * 250 words (about 3.9 passages an article: an assumption, 21M passages from the roughly 5.5M
   * articles of a 2018 English Wikipedia), so an article's last passage is shorter and a title is
   * shared by a few passages.
   */
  passage(id: number): Paragraph {
    if (!this.article || this.article.left === 0) {
      const { title, topic } = this.title();
      const words = Math.max(20, Math.round(Math.exp(Math.log(250) + 0.8 * gaussian(this.random))));
      this.article = { title, topic, pending: [], left: words };
    }
    const a = this.article;
    const take = Math.min(PASSAGE_WORDS, a.left);
    while (a.pending.length < take) {
      const words = this.sentence(a.topic);
      words[words.length - 1] += ".";
      a.pending.push(...words);
    }
    const text = a.pending.splice(0, take).join(" ");
    a.left -= take;
    if (a.left === 0) a.pending = [];
    return { id, title: a.title, text };
  }

  /** The next document of this corpus's shape. */
  document(id: number): Paragraph {
    const doc = this.options.shape === "passages" ? this.passage(id) : this.paragraph(id);
    this.wordCount += countWords(doc.title) + countWords(doc.text);
    return doc;
  }

  /** Documents and words written so far, and how many distinct words they hold. */
  stats(docs: number): CorpusStats {
    let types = 0;
    for (let i = 0; i < this.drawn.length; i++) types += this.drawn[i];
    return { docs, words: this.wordCount, types };
  }

  /** Streams `docs` documents as corpus.jsonl; returns the documents whose ids are in `keep`. */
  async write(
    file: string,
    keep: ReadonlySet<number>,
    onProgress?: (docs: number) => void,
  ): Promise<Map<number, Paragraph>> {
    const kept = new Map<number, Paragraph>();
    const out = createWriteStream(file);
    for (let i = 0; i < this.options.docs; i++) {
      const p = this.document(i);
      if (keep.has(i)) kept.set(i, p);
      if (!out.write(JSON.stringify(p) + "\n")) await new Promise<void>((res) => out.once("drain", () => res()));
      if (onProgress && (i + 1) % 1_000_000 === 0) onProgress(i + 1);
    }
    await new Promise<void>((res, rej) => out.end((e?: Error | null) => (e ? rej(e) : res())));
    return kept;
  }
}

function countWords(text: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const space = text.charCodeAt(i) === 32;
    if (!space && !inWord) n++;
    inWord = !space;
  }
  return n;
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
