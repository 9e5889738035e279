/**
 * A small multi-hop dataset the project writes itself, in the official HotpotQA JSON shape, so the
 * main job runs with no account and no network. Every entity is invented (people, companies,
 * towns, countries from random syllables), so a model answering from memory cannot know the
 * answers: the closed-book floor stays near zero and searching is what scores.
 *
 * Questions follow HotpotQA's two kinds: bridge ("Where was the founder of <company> born?" needs
 * the company's paragraph to find the founder, then the founder's) and comparison ("Which company
 * was founded first, A or B?"). Each comes with its two supporting paragraphs and eight
 * distractors, as in the distractor setting. The offline training pipeline reuses this generator.
 */
import { mulberry32 as makeRng } from "../../base/util/mulberry32";
import { runToEnd, type Stepwise } from "../../base/util/stepwise";

/** One record as in hotpot_dev_distractor_v1.json. */
export interface HotpotRecord {
  _id: string;
  question: string;
  answer: string;
  type: "bridge" | "comparison";
  level: "easy" | "medium" | "hard";
  supporting_facts: [string, number][];
  context: [string, string[]][];
}

export interface SyntheticOptions {
  /** Seed of the generator: same seed, same bytes. */
  seed?: number;
  /** Questions in the train file. */
  train?: number;
  /** Questions in the dev file (prepare splits it into val and test). */
  dev?: number;
  /**
   * "syllables" (default): long invented names, several sentence patterns, all question kinds.
   * "compact": names of two short words (each one Qwen token with its leading space, e.g.
   * "Kel Mor", "Dar Holt"), one phrasing per fact and no year questions. A small world a tiny
   * model can learn to read by copying: the offline training pipeline's setting.
   */
  style?: "syllables" | "compact";
}

export interface SyntheticDataset {
  train: HotpotRecord[];
  dev: HotpotRecord[];
}

const ONSETS = [
  "b",
  "br",
  "d",
  "dr",
  "f",
  "g",
  "gr",
  "h",
  "k",
  "kl",
  "l",
  "m",
  "n",
  "p",
  "qu",
  "r",
  "s",
  "st",
  "t",
  "th",
  "v",
  "w",
  "z",
  "zh",
];
const VOWELS = ["a", "e", "i", "o", "u", "ae", "ei", "ou", "y"];
const CODAS = ["", "", "n", "r", "l", "s", "th", "m", "nd", "rk", "x", "sk"];
const PROFESSIONS = [
  "chemist",
  "architect",
  "novelist",
  "engineer",
  "cartographer",
  "composer",
  "economist",
  "botanist",
  "sculptor",
  "astronomer",
];
const INDUSTRIES = [
  "shipbuilding",
  "textile",
  "software",
  "glassware",
  "railway",
  "pharmaceutical",
  "publishing",
  "brewing",
  "optics",
  "mining",
];
const COMPANY_SUFFIXES = ["Works", "Industries", "Systems", "Holdings", "Foundry", "Labs", "Company", "Group"];
/** Short syllables that Qwen's tokenizer keeps as one token, with and without a leading space. */
const COMPACT_SYLLABLES =
  "Bal Bel Ber Bes Bron Brun Dal Dar Del Dem Dur Fal Fel Fin Gal Gar Gen Gil Gran Hal Hel Hol Hor Kal Kar Kel Ken Kir Lex Lin Mal Mar Mel Mer Mir Mor Nor Pel Per Pol Ren Rol Ros Sal Sel Sol Tan Tar Tel Ter Tor Val Var Vel Ven Vin Vol Wel Wil Zen Dor Bor Tal Fen Mos Lor Kes Sor Vor Gor Hen Pen".split(
    " ",
  );
/** One-token place names (none of them a syllable above): the heuristic reader reads a town or a country as one word. */
const COMPACT_PLACES =
  "Ban Bin Bon Bur Bei Bre Bru Dam Des Dou Dyn Fil Gam Gem Hon Hur Kon Kom Kim Lon Lou Mil Mus Nam Nom Num Pan Pes Pix Por Pos Rem Ron San Sam Sem Sil Sim Som Sus Sur Sym Syn Tam Tem Tim Ton Van Ver Vis Wal Won Wei Wir Wis Bro Bu Gro Hum Ky Ly Lo Lu Mu Nu Pu Ru Su Tu Vu Wy Zend".split(
    " ",
  );
const COMPACT_COMPANY_WORDS = ["Works", "Industries", "Systems", "Holdings", "Labs", "Company", "Group"];
/** Most companies a compact world holds: 480 of the 504 syllable × word names (drawing the last few would be slow). */
const COMPACT_COMPANY_CAP = 480;
/** Most people a compact world holds (of 72 × 72 two-syllable names); more questions reuse them in new pairs. */
const COMPACT_PEOPLE_CAP = 3000;
const RIVERS = ["Vell", "Ostra", "Maren", "Quill", "Tessa", "Dorn", "Ilvan", "Sorrow"];

interface Person {
  name: string;
  birthYear: number;
  birthTown: string;
  movedTo: string;
  profession: string;
  she: boolean;
}
interface Town {
  name: string;
  country: string;
  population: number;
  river: string;
}
interface Company {
  name: string;
  founder: Person;
  year: number;
  town: string;
  industry: string;
  /** Which sentence pattern the paragraph uses: real text states a fact in several ways. */
  phrasing: number;
}

class World {
  private readonly used = new Set<string>();
  readonly towns: Town[] = [];
  readonly countries: string[] = [];
  readonly people: Person[] = [];
  readonly companies: Company[] = [];

  constructor(
    readonly rng: () => number,
    readonly compact = false,
  ) {}

  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rng() * xs.length)];
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.rng() * (hi - lo + 1));
  }
  /** A fresh invented word, capitalised, never used before in this world. */
  word(syllables: number, suffix = ""): string {
    for (;;) {
      let w = "";
      for (let i = 0; i < syllables; i++)
        w += this.pick(ONSETS) + this.pick(VOWELS) + (i === syllables - 1 ? this.pick(CODAS) : "");
      w = w[0].toUpperCase() + w.slice(1) + suffix;
      if (!this.used.has(w)) {
        this.used.add(w);
        return w;
      }
    }
  }

  /** A fresh compact name: a syllable and a word from `second` ("Kel Mor"), or one place word. */
  compactName(second?: readonly string[]): string {
    // The compact name space is finite: fail loudly instead of drawing forever once it runs dry.
    for (let tries = 0; tries < 100_000; tries++) {
      const w = second ? `${this.pick(COMPACT_SYLLABLES)} ${this.pick(second)}` : this.pick(COMPACT_PLACES);
      if (!this.used.has(w)) {
        this.used.add(w);
        return w;
      }
    }
    throw new Error("the compact world ran out of unused names");
  }

  build(nPeople: number): void {
    const c = this.compact;
    for (let i = 0; i < 10; i++) this.countries.push(c ? this.compactName() : this.word(2, "ia"));
    // Compact worlds have fewer towns: their names come from a fixed list of one-token words.
    const nTowns = c
      ? Math.min(COMPACT_PLACES.length - 10, Math.max(20, Math.ceil(nPeople / 10)))
      : Math.max(20, Math.ceil(nPeople / 5));
    for (let i = 0; i < nTowns; i++) {
      const name = c ? this.compactName() : this.word(2, this.pick(["holt", "mar", "burg", "vik", "ford", ""]));
      this.towns.push({
        name,
        country: this.pick(this.countries),
        population: this.int(3, 900) * 1000,
        river: this.pick(RIVERS),
      });
    }
    for (let i = 0; i < nPeople; i++) {
      const birthTown = this.pick(this.towns).name;
      let movedTo = this.pick(this.towns).name;
      while (movedTo === birthTown) movedTo = this.pick(this.towns).name;
      const name = c ? this.compactName(COMPACT_SYLLABLES) : `${this.word(2)} ${this.word(2)}`;
      this.people.push({
        name,
        birthYear: this.int(1850, 1975),
        birthTown,
        movedTo,
        profession: this.pick(PROFESSIONS),
        she: this.rng() < 0.5,
      });
    }
    // Every person founds at most one company, so "the founder of X" names one paragraph. Compact
    // company names are a syllable and one of a few words, so their count is capped below that space.
    const nCompanies = Math.min(Math.floor(nPeople * 0.7), c ? COMPACT_COMPANY_CAP : Infinity);
    for (const founder of this.people.slice(0, nCompanies)) {
      this.companies.push({
        name: c ? this.compactName(COMPACT_COMPANY_WORDS) : `${this.word(2)} ${this.pick(COMPANY_SUFFIXES)}`,
        founder,
        year: founder.birthYear + this.int(22, 50),
        town: this.pick(this.towns).name,
        industry: this.pick(INDUSTRIES),
        phrasing: c ? 0 : this.int(0, 3),
      });
    }
  }

  town(name: string): Town {
    return this.towns.find((t) => t.name === name)!;
  }
}

function personParagraph(p: Person): [string, string[]] {
  const pron = p.she ? "She" : "He";
  return [
    p.name,
    [
      `${p.name} (born ${p.birthYear}) is a ${p.profession}.`,
      ` ${pron} was born in ${p.birthTown} and later moved to ${p.movedTo}.`,
      ` ${pron} is best known for work published in the ${Math.floor((p.birthYear + 40) / 10) * 10}s.`,
    ],
  ];
}

function companyParagraph(c: Company): [string, string[]] {
  const first = `${c.name} is a ${c.industry} company based in ${c.town}.`;
  // Three phrasings a simple reader understands, one ("set up by") it may not: like real text.
  const second = [
    ` It was founded in ${c.year} by ${c.founder.name}.`,
    ` The company was founded by ${c.founder.name} in ${c.year}.`,
    ` It was founded in ${c.year} by the ${c.founder.profession} ${c.founder.name}.`,
    ` ${c.founder.name} set it up in ${c.year}.`,
  ][c.phrasing];
  return [c.name, [first, second, ` It employs about ${(c.year % 97) * 10 + 40} people.`]];
}

function townParagraph(t: Town): [string, string[]] {
  return [
    t.name,
    [
      `${t.name} is a town in ${t.country}.`,
      ` It lies on the ${t.river} river and has about ${t.population.toLocaleString("en-US")} inhabitants.`,
    ],
  ];
}

/** Writes one question with its supporting paragraphs and eight distractors, shuffled. */
function withDistractors(world: World, gold: [string, string[]][], pool: [string, string[]][]): [string, string[]][] {
  const titles = new Set(gold.map((g) => g[0]));
  const ctx = [...gold];
  while (ctx.length < 10) {
    const d = world.pick(pool);
    if (!titles.has(d[0])) {
      titles.add(d[0]);
      ctx.push(d);
    }
  }
  for (let i = ctx.length - 1; i > 0; i--) {
    const j = Math.floor(world.rng() * (i + 1));
    [ctx[i], ctx[j]] = [ctx[j], ctx[i]];
  }
  return ctx;
}

/**
 * Every question kind the makers below write, with the exact shape of its questions: what the
 * pipeline's per-kind report groups episodes by (a question matching none is "other").
 */
export const QUESTION_KINDS: readonly (readonly [string, RegExp])[] = [
  ["founder-birthplace", /^Where was the founder of .+ born\?$/],
  ["founder-birth-year", /^In what year was the founder of .+ born\?$/],
  ["birth-country", /^In which country was the [a-z]+ .+ born\?$/],
  ["founded-first", /^Which company was founded first, .+ or .+\?$/],
  ["born-earlier", /^Who was born earlier, .+ or .+\?$/],
  ["same-town", /^Were .+ and .+ born in the same town(?:, yes or no)?\?$/],
  ["moved-to", /^Which town did the [a-z]+ .+ move to\?$/],
];

/** The kind of a synthetic question (see QUESTION_KINDS), or "other". */
export function questionKind(question: string): string {
  const q = question.trim();
  return QUESTION_KINDS.find(([, shape]) => shape.test(q))?.[0] ?? "other";
}

type Maker = (world: World, id: string, pool: [string, string[]][]) => HotpotRecord | undefined;

const founderBirthplace: Maker = (w, id, pool) => {
  const c = w.pick(w.companies);
  return record(
    id,
    `Where was the founder of ${c.name} born?`,
    c.founder.birthTown,
    "bridge",
    [
      [c.name, 1],
      [c.founder.name, 1],
    ],
    withDistractors(w, [companyParagraph(c), personParagraph(c.founder)], pool),
  );
};

const founderBirthYear: Maker = (w, id, pool) => {
  const c = w.pick(w.companies);
  return record(
    id,
    `In what year was the founder of ${c.name} born?`,
    String(c.founder.birthYear),
    "bridge",
    [
      [c.name, 1],
      [c.founder.name, 0],
    ],
    withDistractors(w, [companyParagraph(c), personParagraph(c.founder)], pool),
  );
};

const birthCountry: Maker = (w, id, pool) => {
  const p = w.pick(w.people);
  const t = w.town(p.birthTown);
  return record(
    id,
    `In which country was the ${p.profession} ${p.name} born?`,
    t.country,
    "bridge",
    [
      [p.name, 1],
      [t.name, 0],
    ],
    withDistractors(w, [personParagraph(p), townParagraph(t)], pool),
  );
};

/** One hop, but a fact the scripted reader has no rule for: the offline teacher never answers it. */
const movedTo: Maker = (w, id, pool) => {
  const p = w.pick(w.people);
  return record(
    id,
    `Which town did the ${p.profession} ${p.name} move to?`,
    p.movedTo,
    "bridge",
    [[p.name, 1]],
    withDistractors(w, [personParagraph(p)], pool),
  );
};

const foundedFirst: Maker = (w, id, pool) => {
  const a = w.pick(w.companies);
  const b = w.pick(w.companies);
  if (a === b || a.year === b.year) return undefined;
  const answer = a.year < b.year ? a.name : b.name;
  return record(
    id,
    `Which company was founded first, ${a.name} or ${b.name}?`,
    answer,
    "comparison",
    [
      [a.name, 1],
      [b.name, 1],
    ],
    withDistractors(w, [companyParagraph(a), companyParagraph(b)], pool),
  );
};

const bornEarlier: Maker = (w, id, pool) => {
  const a = w.pick(w.people);
  const b = w.pick(w.people);
  if (a === b || a.birthYear === b.birthYear) return undefined;
  const answer = a.birthYear < b.birthYear ? a.name : b.name;
  return record(
    id,
    `Who was born earlier, ${a.name} or ${b.name}?`,
    answer,
    "comparison",
    [
      [a.name, 0],
      [b.name, 0],
    ],
    withDistractors(w, [personParagraph(a), personParagraph(b)], pool),
  );
};

const sameBirthplace: Maker = (w, id, pool) => {
  const a = w.pick(w.people);
  // Half the time pick someone from the same town, so "yes" and "no" are both common.
  const sameTown = w.people.filter((p) => p !== a && p.birthTown === a.birthTown);
  const b = w.rng() < 0.5 && sameTown.length > 0 ? w.pick(sameTown) : w.pick(w.people);
  if (a === b) return undefined;
  // Compact worlds name the answer's two words in the question, as a choice question names its
  // options: a model that answers by copying from its context can then say "yes" or "no" at all.
  const question = `Were ${a.name} and ${b.name} born in the same town${w.compact ? ", yes or no" : ""}?`;
  return record(
    id,
    question,
    a.birthTown === b.birthTown ? "yes" : "no",
    "comparison",
    [
      [a.name, 1],
      [b.name, 1],
    ],
    withDistractors(w, [personParagraph(a), personParagraph(b)], pool),
  );
};

const MAKERS: Maker[] = [
  founderBirthplace,
  founderBirthYear,
  birthCountry,
  founderBirthplace,
  foundedFirst,
  bornEarlier,
  sameBirthplace,
];
/**
 * Compact worlds leave out the year question (a year is four digit tokens to copy) and add one the
 * scripted reader cannot answer (moved-to), so the offline recipe has a kind imitation never shows.
 */
const COMPACT_MAKERS: Maker[] = [
  founderBirthplace,
  birthCountry,
  founderBirthplace,
  foundedFirst,
  bornEarlier,
  sameBirthplace,
  movedTo,
];

function record(
  id: string,
  question: string,
  answer: string,
  type: "bridge" | "comparison",
  supporting: [string, number][],
  context: [string, string[]][],
): HotpotRecord {
  return { _id: id, question, answer, type, level: "medium", supporting_facts: supporting, context };
}

/** Misses in a row after which a question kind counts as used up (far above any chance run of repeats). */
const MAX_MISSES_IN_A_ROW = 200;

/** Generates train and dev questions over one invented world; deterministic for a seed. */
export function generateSyntheticHotpot(options: SyntheticOptions = {}): SyntheticDataset {
  return runToEnd(buildSyntheticHotpot(options));
}

/** The same dataset, yielding after each question tried (an experiment's world phase stops between two). */
export function* buildSyntheticHotpot(options: SyntheticOptions = {}): Stepwise<SyntheticDataset> {
  const compact = options.style === "compact";
  const world = new World(makeRng(options.seed ?? 20261129), compact);
  const makers = compact ? COMPACT_MAKERS : MAKERS;
  const nTrain = options.train ?? 300;
  const nDev = options.dev ?? 300;
  const nPeople = Math.max(60, Math.ceil((nTrain + nDev) / 2));
  world.build(compact ? Math.min(nPeople, COMPACT_PEOPLE_CAP) : nPeople);
  const pool = [
    ...world.people.map(personParagraph),
    ...world.companies.map(companyParagraph),
    ...world.towns.map(townParagraph),
  ];
  const seenQuestions = new Set<string>();
  function* make(prefix: string, n: number): Stepwise<HotpotRecord[]> {
    const out: HotpotRecord[] = [];
    // Kinds take turns. A kind whose unique questions run out (one bridge question per company)
    // would otherwise be retried until the attempt budget is spent: after many misses in a row it
    // is dropped and the others share its turns, so a large world still fills its splits quickly.
    let active = makers.map((_, i) => i);
    let misses = 0;
    for (let attempts = 0; out.length < n && attempts < n * 50 && active.length > 0; attempts++) {
      const k = active[out.length % active.length];
      const r = makers[k](world, `${prefix}${String(out.length).padStart(5, "0")}`, pool);
      yield;
      if (!r || seenQuestions.has(r.question)) {
        if (++misses >= MAX_MISSES_IN_A_ROW) {
          active = active.filter((i) => makers[i] !== makers[k]);
          misses = 0;
        }
        continue;
      }
      misses = 0;
      seenQuestions.add(r.question);
      out.push(r);
    }
    return out;
  }
  const train = yield* make("syn-train-", nTrain);
  return { train, dev: yield* make("syn-dev-", nDev) };
}
