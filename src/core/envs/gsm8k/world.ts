/**
 * The offline arithmetic world: GSM8K-shaped word problems the project writes itself from a seed
 * (same seed, same bytes), in GSM8K's record format (`{question, answer}`, the answer ending
 * `#### N`), so GSM8K's reader and split writer take them as they take the real files, and GSM8K's
 * own grader scores the `\boxed{}` replies.
 *
 * Every problem names three numbers by one-letter variables — a count ("c=14 pens"), a price in
 * dollars ("p=\$52") and a stall number ("n=\!37") — and asks for one: "What is p?", or the price
 * in words, "How many dollars did the pens cost?". The tiny local model cannot compute, but it can
 * learn to copy: the variable after "What is", then what follows that variable in the problem,
 * down to its last digit. Each variable's digits follow a mark of their own ("=", "$", "!"), so the
 * copy is never ambiguous, and GSM8K's grader reads a boxed "p=\$52" as 52. The three numbers are
 * distinct two-digit numbers; names, items and the order of the last two sentences vary.
 *
 * Kinds (`worldKind` reads one back from a question): count, price, stall and dollars. The scripted
 * teacher (teacher.ts) has no rule for dollars questions, which name no variable, so the SFT data
 * shows none of them: what GRPO adds on a kind imitation never saw is the pipeline's per-kind line.
 */
import { mulberry32 } from "../../base/util/mulberry32";
import type { Gsm8kRecord } from "./data";
import { runToEnd, type Stepwise } from "../../base/util/stepwise";

/** The number a question asks for; "dollars" asks for the price in words ("How many dollars …?"), naming no variable. */
export type WorldKind = "count" | "price" | "stall" | "dollars";
export const WORLD_KINDS: readonly WorldKind[] = Object.freeze(["count", "price", "stall", "dollars"]);

/** The kinds whose number has a variable of its own. */
type Named = Exclude<WorldKind, "dollars">;

export interface ArithmeticWorldOptions {
  seed: number;
  /** Problems in the train file (prepare takes GSM8K's val split from these: at least VAL_SIZE + 1). */
  train: number;
  /** Problems in the test file (the locked test split, never opened by the pipeline). */
  test: number;
}

export interface ArithmeticWorld {
  train: Gsm8kRecord[];
  test: Gsm8kRecord[];
}

const NAMES = ["Mia", "Noah", "Ava", "Liam", "Zoe", "Omar", "Lena", "Ivan", "Rosa", "Theo", "Nina", "Hugo"];
const ITEMS = ["pens", "apples", "books", "cups", "plates", "candles", "shirts", "bowls", "kites", "lamps"];

/**
 * Each kind's number is named by a one-letter variable, written as GSM8K's grader reads an answer
 * "x=N" (it takes the right side of a short left side) and marked so its digits follow a token of
 * their own: "c=14" (after "="), "p=\$52" (after "$") and "n=\!37" (after "!"; the grader drops
 * both marks, and the Qwen tokenizers write "=\" as one token in both). None of the letters occurs
 * in GSM8K's few-shot example.
 */
export const WORLD_VARIABLES: Readonly<Record<Named, string>> = Object.freeze({
  count: "c",
  price: "p",
  stall: "n",
});

const written: Record<Named, (n: number) => string> = {
  count: (n) => `c=${n}`,
  price: (n) => `p=\\$${n}`,
  stall: (n) => `n=\\!${n}`,
};

/** How the problem's own text writes a kind's number ("p=\$52"): the teacher boxes exactly this. */
export function writtenNumber(kind: Named, n: number): string {
  return written[kind](n);
}

/** The question sentence: "What is <variable>?", or the price in words. */
const ask = (kind: WorldKind, item: string) =>
  kind === "dollars" ? `How many dollars did the ${item} cost?` : `What is ${WORLD_VARIABLES[kind]}?`;

/** The kind a question asks for, or undefined when it is not one of the world's. */
export function worldKind(question: string): WorldKind | undefined {
  if (/ How many dollars did the \w+ cost\?$/.test(question)) return "dollars";
  const m = / What is ([cpn])\?$/.exec(question);
  if (!m) return undefined;
  return (["count", "price", "stall"] as const).find((k) => WORLD_VARIABLES[k] === m[1]);
}

/** The numbers a problem names, by kind, as the world wrote them. */
export interface WorldNumbers {
  count: number;
  price: number;
  stall: number;
}

/** Reads the three marked numbers back from a problem's text (undefined when it is not the world's). */
export function worldNumbers(question: string): WorldNumbers | undefined {
  const count = / c=(\d+) /.exec(question);
  const price = / p=\\\$(\d+) /.exec(question);
  const stall = / n=\\!(\d+)\./.exec(question);
  if (!count || !price || !stall) return undefined;
  return { count: Number(count[1]), price: Number(price[1]), stall: Number(stall[1]) };
}

function problem(rand: () => number): Gsm8kRecord {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const numbers: number[] = [];
  while (numbers.length < 3) {
    const n = 10 + Math.floor(rand() * 90);
    if (!numbers.includes(n)) numbers.push(n);
  }
  const [count, price, stall] = numbers;
  const name = pick(NAMES);
  const item = pick(ITEMS);
  const kind = pick(WORLD_KINDS);
  const facts = [
    `${name} bought ${written.count(count)} ${item} at a market.`,
    `The ${item} cost ${written.price(price)} in all.`,
    `${name} found them at the stall ${written.stall(stall)}.`,
  ];
  // The count's sentence comes first (it names the person); the other two in either order.
  const body = rand() < 0.5 ? facts : [facts[0], facts[2], facts[1]];
  const question = `${body.join(" ")} ${ask(kind, item)}`;
  const named: Named = kind === "dollars" ? "price" : kind;
  const value = { count, price, stall }[named];
  return { question, answer: `${WORLD_VARIABLES[named]} is ${value}.\n#### ${value}` };
}

/** The world's train and test problems; every question text is distinct within and across the files. */
export function generateArithmeticWorld(o: ArithmeticWorldOptions): ArithmeticWorld {
  return runToEnd(buildArithmeticWorld(o));
}

/** The same world, yielding after each problem drawn (an experiment's world phase stops between two). */
export function* buildArithmeticWorld(o: ArithmeticWorldOptions): Stepwise<ArithmeticWorld> {
  const rand = mulberry32(o.seed);
  const seen = new Set<string>();
  function* take(n: number): Stepwise<Gsm8kRecord[]> {
    const out: Gsm8kRecord[] = [];
    while (out.length < n) {
      const p = problem(rand);
      yield;
      if (seen.has(p.question)) continue;
      seen.add(p.question);
      out.push(p);
    }
    return out;
  }
  const train = yield* take(o.train);
  return { train, test: yield* take(o.test) };
}
