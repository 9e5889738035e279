/**
 * The offline generator: word problems with a Python `solution()`, drawn from a seeded template
 * set, a share of them deliberately broken the ways a model's drafts break (a crash, an endless
 * loop, a text answer where a number is wanted, a repeat of an earlier problem, a reach for the
 * host). It exercises every filter without a model; its tasks are honest arithmetic (GSM8K) or
 * honest lookups over the synthetic world's paragraphs (HotpotQA-style), each answer computed by
 * the code, never written by hand.
 */
import { mulberry32 } from "../../../base/util/mulberry32";
import { drawSeed, type CandidateDraft, type GeneratedCandidate, type TaskGenerator } from "./generator";

/** Share of drafts that are broken on purpose. */
export const BROKEN_SHARE = 0.2;
export const BREAKAGES = ["error", "timeout", "wrong-type", "duplicate", "escape"] as const;

type Rng = () => number;
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)];
const int = (rng: Rng, lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));
/** Text as a Python string literal (JSON's escapes are valid Python for these strings). */
const py = (s: string) => JSON.stringify(s);

const NAMES = [
  "Ava",
  "Ben",
  "Chloe",
  "Dev",
  "Elena",
  "Farid",
  "Grace",
  "Hiro",
  "Ines",
  "Jonah",
  "Kemi",
  "Luca",
  "Maya",
  "Noor",
  "Omar",
  "Priya",
];
const ITEMS = ["apples", "stickers", "marbles", "pencils", "cookies", "stamps", "shells", "cards"];

type Template = (rng: Rng) => CandidateDraft;

const GSM8K_TEMPLATES: Template[] = [
  (r) => {
    const [n, item, a, b] = [pick(r, NAMES), pick(r, ITEMS), int(r, 12, 90), int(r, 3, 40)];
    const c = int(r, 1, a + b - 1);
    return {
      problem: `${n} has ${a} ${item}. ${n} buys ${b} more and then gives ${c} to a friend. How many ${item} does ${n} have now?`,
      solution: `def solution():\n    have = ${a}\n    have += ${b}\n    have -= ${c}\n    return have`,
    };
  },
  (r) => {
    const [n, price, count] = [pick(r, NAMES), int(r, 2, 15), int(r, 2, 9)];
    const bill = [50, 100][int(r, 0, 1)];
    return {
      problem: `${n} buys ${count} notebooks that cost $${price} each and pays with a $${bill} bill. How many dollars of change does ${n} get?`,
      solution: `def solution():\n    cost = ${count} * ${price}\n    return ${bill} - cost`,
    };
  },
  (r) => {
    const [n, perDay, pages] = [pick(r, NAMES), int(r, 8, 40), int(r, 120, 600)];
    return {
      problem: `${n} reads ${perDay} pages every day. The book has ${pages} pages. How many days does ${n} need to finish the book?`,
      solution: `import math\n\ndef solution():\n    return math.ceil(${pages} / ${perDay})`,
    };
  },
  (r) => {
    const [rows, per, cut] = [int(r, 4, 20), int(r, 5, 25), int(r, 1, 30)];
    return {
      problem: `An orchard has ${rows} rows with ${per} trees in each row. A storm knocks down ${cut} trees. How many trees are still standing?`,
      solution: `def solution():\n    return ${rows} * ${per} - ${cut}`,
    };
  },
  (r) => {
    const [n, wage, hours, days] = [pick(r, NAMES), int(r, 9, 30), int(r, 2, 8), int(r, 2, 6)];
    return {
      problem: `${n} earns $${wage} an hour and works ${hours} hours a day for ${days} days. How many dollars does ${n} earn in total?`,
      solution: `def solution():\n    per_day = ${wage} * ${hours}\n    return per_day * ${days}`,
    };
  },
  (r) => {
    const [speed, t] = [int(r, 30, 110), int(r, 2, 9) / 2];
    return {
      problem: `A train travels at ${speed} kilometres per hour for ${t} hours. How many kilometres does it travel?`,
      solution: `def solution():\n    return ${speed} * ${t}`,
    };
  },
  (r) => {
    const [n, item, total, share] = [pick(r, NAMES), pick(r, ITEMS), int(r, 4, 30) * 6, [2, 3, 6][int(r, 0, 2)]];
    return {
      problem: `${n} has ${total} ${item} and shares them equally among ${share} friends, keeping none. How many ${item} does each friend get?`,
      solution: `def solution():\n    return ${total} // ${share}`,
    };
  },
];

/** Breaks a good draft on purpose, the way `kind` names. */
function broken(
  kind: (typeof BREAKAGES)[number],
  good: CandidateDraft,
  earlier: CandidateDraft | undefined,
  textAnswers: boolean,
): CandidateDraft {
  switch (kind) {
    case "error":
      return { problem: good.problem, solution: good.solution.replace(/return (.+)$/m, "return ($1) / 0") };
    case "timeout":
      return {
        problem: good.problem,
        solution: "def solution():\n    n = 0\n    while True:\n        n += 1\n    return n",
      };
    case "wrong-type":
      return {
        problem: good.problem,
        solution: textAnswers ? "def solution():\n    return 1907" : 'def solution():\n    return "about " + str(7)',
      };
    case "duplicate":
      return earlier ?? good;
    case "escape":
      return {
        problem: good.problem,
        solution: "import os\n\ndef solution():\n    return len(os.environ.get('TINKER_API_KEY', ''))",
      };
  }
}

export interface ScriptedGeneratorOptions {
  seed: number;
  /** Share of drafts broken on purpose (default BROKEN_SHARE). */
  brokenShare?: number;
}

/** Drafts from templates; `templates` decides the environment. */
class TemplateGenerator implements TaskGenerator {
  readonly paid = false;

  constructor(
    readonly id: string,
    private readonly templates: readonly Template[],
    private readonly o: ScriptedGeneratorOptions,
    private readonly textAnswers: boolean,
  ) {
    if (templates.length === 0) throw new Error("a scripted generator needs at least one template");
  }

  async generate(index: number): Promise<GeneratedCandidate> {
    const rng = mulberry32(drawSeed(this.o.seed, index, this.id));
    const good = pick(rng, this.templates)(rng);
    const draft =
      rng() < (this.o.brokenShare ?? BROKEN_SHARE)
        ? broken(pick(rng, BREAKAGES), good, this.earlier(index, rng), this.textAnswers)
        : good;
    return { ok: true, draft, prefill: 0, sampled: 0 };
  }

  /** An earlier index's good draft, recomputed (so a resumed generator repeats the same one). */
  private earlier(index: number, rng: Rng): CandidateDraft | undefined {
    if (index === 0) return undefined;
    const j = Math.floor(rng() * index);
    const r = mulberry32(drawSeed(this.o.seed, j, this.id));
    return pick(r, this.templates)(r);
  }
}

export function scriptedGsm8kGenerator(o: ScriptedGeneratorOptions): TaskGenerator {
  return new TemplateGenerator(`scripted:gsm8k@seed${o.seed}`, GSM8K_TEMPLATES, o, false);
}

// --- HotpotQA-style questions over a world's paragraphs ---------------------------------------

export interface WorldFacts {
  people: { name: string; year: number; profession: string; town: string }[];
  companies: { name: string; year: number; founder: string }[];
  towns: Map<string, string>;
}

const PERSON = /^(.+?) \(born (\d{4})\) is an? (\w+)\.\s+(?:He|She) was born in (.+?) and later moved to/;
const COMPANY = /^(.+?) is an? \w+ company based in .+?\.\s+It was founded in (\d{4}) by (.+?)\./;
const TOWN = /^(.+?) is a town in (.+?)\./;

/** The facts a reader of the paragraphs can state (people, companies, towns), from corpus rows. */
export function readWorldFacts(paragraphs: Iterable<{ title: string; text: string }>): WorldFacts {
  const facts: WorldFacts = { people: [], companies: [], towns: new Map() };
  for (const p of paragraphs) {
    let m: RegExpExecArray | null;
    if ((m = PERSON.exec(p.text))) facts.people.push({ name: m[1], year: Number(m[2]), profession: m[3], town: m[4] });
    else if ((m = COMPANY.exec(p.text))) facts.companies.push({ name: m[1], year: Number(m[2]), founder: m[3] });
    else if ((m = TOWN.exec(p.text))) facts.towns.set(m[1], m[2]);
  }
  return facts;
}

function worldTemplates(f: WorldFacts): Template[] {
  const person = new Map(f.people.map((p) => [p.name, p]));
  const founded = f.companies.filter((c) => person.has(c.founder));
  const placed = f.people.filter((p) => f.towns.has(p.town));
  const out: Template[] = [];
  if (founded.length) {
    out.push((r) => {
      const c = pick(r, founded);
      const p = person.get(c.founder)!;
      return {
        problem: `Where was the founder of ${c.name} born?`,
        solution: `def solution():\n    founder = {${py(c.name)}: ${py(p.name)}}\n    born_in = {${py(p.name)}: ${py(p.town)}}\n    return born_in[founder[${py(c.name)}]]`,
      };
    });
  }
  if (founded.length > 1) {
    out.push((r) => {
      const [a, b] = [pick(r, founded), pick(r, founded)];
      return {
        problem: `Which company was founded first, ${a.name} or ${b.name}?`,
        solution: `def solution():\n    year = {${py(a.name)}: ${a.year}, ${py(b.name)}: ${b.year}}\n    a, b = ${py(a.name)}, ${py(b.name)}\n    if a == b or year[a] == year[b]:\n        raise ValueError("not a comparison")\n    return a if year[a] < year[b] else b`,
      };
    });
  }
  if (placed.length) {
    out.push((r) => {
      const p = pick(r, placed);
      return {
        problem: `In which country was the ${p.profession} ${p.name} born?`,
        solution: `def solution():\n    town = ${py(p.town)}\n    country = {town: ${py(f.towns.get(p.town)!)}}\n    return country[town]`,
      };
    });
  }
  if (f.people.length > 1) {
    out.push((r) => {
      const [a, b] = [pick(r, f.people), pick(r, f.people)];
      return {
        problem: `Who was born earlier, ${a.name} or ${b.name}?`,
        solution: `def solution():\n    born = {${py(a.name)}: ${a.year}, ${py(b.name)}: ${b.year}}\n    a, b = ${py(a.name)}, ${py(b.name)}\n    if a == b or born[a] == born[b]:\n        raise ValueError("not a comparison")\n    return a if born[a] < born[b] else b`,
      };
    });
  }
  return out;
}

/** HotpotQA-style questions over a world's paragraphs, answers looked up by the code. */
export function scriptedWorldGenerator(facts: WorldFacts, o: ScriptedGeneratorOptions): TaskGenerator {
  return new TemplateGenerator(`scripted:hotpotqa@seed${o.seed}`, worldTemplates(facts), o, true);
}
