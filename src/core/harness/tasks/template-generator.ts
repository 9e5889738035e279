/**
 * The offline generator's machinery: word problems with a Python `solution()`, drawn from a seeded
 * template set an environment supplies (its folder's gen-tasks.ts), a share of them deliberately
 * broken the ways a model's drafts break (a crash, an endless loop, a wrong answer type, a repeat of
 * an earlier problem, a reach for the host). It exercises every filter without a model; the
 * templates' answers are computed by their code, never written by hand.
 */
import { mulberry32 } from "../../base/util/mulberry32";
import { drawSeed, type CandidateDraft, type GeneratedCandidate, type TaskGenerator } from "./generator";

/** Share of drafts that are broken on purpose. */
export const BROKEN_SHARE = 0.2;
export const BREAKAGES = ["error", "timeout", "wrong-type", "duplicate", "escape"] as const;

export type Rng = () => number;
export const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)];
export const int = (rng: Rng, lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));
/** Text as a Python string literal (JSON's escapes are valid Python for these strings). */
export const py = (s: string) => JSON.stringify(s);

/** One problem shape: a draft from the generator's seeded draws. */
export type Template = (rng: Rng) => CandidateDraft;

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

/** Drafts from templates; `templates` decides the environment, `textAnswers` what a wrong answer type is. */
export class TemplateGenerator implements TaskGenerator {
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
