/**
 * Paired comparison of runs on the questions they all share (the recipe's Step 5, ablate.py),
 * with the statistics a reviewer asks for, on the environment's two declared metric roles (its
 * primary metric and its binary one, base/runs/metrics.ts):
 * - per run: both with 95% percentile bootstrap intervals (seeded);
 * - per run after the first: both Δ against the first run with *paired* intervals (one draw of
 *   question indices per resample, applied to every run), a paired sign-flip test for the primary
 *   metric and McNemar's exact test for the binary one, Holm-adjusted across all of them, and a verdict;
 * - the minimum detectable Δ of the primary metric at 80% power for this many paired questions;
 * - warnings when runs differ in fingerprint fields other than the ones under test.
 */
import { basename } from "node:path";
import { FileFormatError, UserError } from "../../base/errors";
import { describeEnvironment, manifestEnvironment } from "../../envs/manifest-environment";
import { fingerprintDiff, type FieldDifference, type RunManifest } from "../../base/runs/manifest";
import { episodesPath, readEpisodeFields, readRunHead, type EpisodeRecord } from "../../base/runs/run-files";
import { ABLATE_FIELDS, type EpisodeField } from "../../base/runs/episode-record";
import { HEAD_FIELDS } from "../../base/runs/episode-index";
import { mean, percentileInterval, sampleSd, type Interval } from "../../base/stats/bootstrap";
import { minimumDetectableDelta } from "../../base/stats/power";
import { DEFAULT_RESAMPLES } from "../../base/stats/resamples";
import { questionOrder, SHOWN_INTERVAL } from "../../base/stats/shown-interval";
import { environmentRoles, environmentMetrics } from "../../envs/catalog";
import { metricValue } from "../../base/runs/metrics";
import { holmAdjust, mcnemarExact } from "../../base/stats/significance";
import { DIRECT_RESAMPLING, type Resampling } from "../../base/stats/resample-memo";
import {
  ABLATION_FORMAT,
  type AblationComparison,
  type AblationReport,
  type AblationRun,
  type Flip,
  type FlipCounts,
  type QuestionRow,
  type Verdict,
  reportMetrics,
} from "./report-types";

export { DEFAULT_RESAMPLES };
export const LEVEL = SHOWN_INTERVAL.level;
export const ALPHA = 0.05;
export const POWER = 0.8;

export const VERDICT_RULE =
  `"better" when the Holm-adjusted p < ${ALPHA} and the paired ${LEVEL * 100}% interval lies entirely above 0; ` +
  `"worse" when the adjusted p < ${ALPHA} and the interval lies entirely below 0; ` +
  `otherwise "not distinguishable" (also when the test and the interval disagree).`;

/** Scores that differ by less than this are a tie (partial credit is often a ratio of small integers). */
const TIE = 1e-9;

/**
 * The fields of an episode ablate reads (the only ones read from episodes.jsonl; Compare's run cache
 * keeps these): a trace row's head, for the report's failure text, and the cost.
 */
export const ABLATION_EPISODE_FIELDS = [...HEAD_FIELDS, "usd"] as const satisfies readonly EpisodeField[];
export type AblationEpisode = Pick<EpisodeRecord, (typeof ABLATION_EPISODE_FIELDS)[number]>;

/** One run as ablate needs it: loaded from a folder (whole records, or the fields ablate reads), or built in memory by a test. */
export interface AblationInput<E extends AblationEpisode = AblationEpisode> {
  name: string;
  dir: string;
  manifest: RunManifest | undefined;
  episodes: E[];
}

export interface AblationOptions {
  resamples?: number;
  seed?: number;
  /** Fingerprint fields (dotted; a prefix covers its sub-fields) expected to differ between runs. */
  expect?: string[];
  /** How a warning tells the reader to name a field as expected (default: the CLI's --expect flag). */
  expectAdvice?: string;
  /** Timestamp for the document (tests pin it). */
  now?: Date;
  /** How the bootstrap and the sign-flip tests are computed (default directly; Compare remembers them). */
  resampling?: Resampling;
}

/** Reads run folders, checking (by the one episode check) that every episode carries the numbers ablate uses. */
export function loadAblationInputs(dirs: readonly string[]): AblationInput[] {
  return readAblationInputs(dirs, readAblationRun);
}

/**
 * A run folder's manifest and the fields of its episodes ablate reads, without the rest of each
 * line (most of it token arrays): the one reader of runs for `ablate` and Compare (their digits are equal).
 */
export function readAblationRun(dir: string): { manifest: RunManifest | undefined; episodes: AblationEpisode[] } {
  return {
    ...readRunHead(dir),
    episodes: readEpisodeFields(dir, environmentMetrics, ABLATION_EPISODE_FIELDS, ABLATE_FIELDS),
  };
}

/** Run folders read by `read` (their files, or a cache of them), labelled by folder name. */
export function readAblationInputs<E extends AblationEpisode>(
  dirs: readonly string[],
  read: (dir: string) => { manifest: RunManifest | undefined; episodes: E[] },
): AblationInput<E>[] {
  const names = new Map<string, number>();
  return dirs.map((dir) => {
    const files = read(dir);
    if (files.episodes.length === 0)
      throw new FileFormatError(episodesPath(dir), undefined, "no finished episodes to compare");
    // Two folders with one name (runs/a/x and runs/b/x) keep distinct labels.
    const base = basename(dir.replace(/[\\/]+$/, "")) || dir;
    const seen = names.get(base) ?? 0;
    names.set(base, seen + 1);
    return { name: seen === 0 ? base : `${base}#${seen + 1}`, dir, manifest: files.manifest, episodes: files.episodes };
  });
}

/** Runs of different environments answer different questions with different metrics: never paired. */
export function checkSameEnvironment(inputs: readonly Pick<AblationInput, "name" | "manifest">[]): void {
  const base = manifestEnvironment(inputs[0]?.manifest);
  for (const r of inputs.slice(1)) {
    const other = manifestEnvironment(r.manifest);
    if (other.name !== base.name || other.version !== base.version) {
      throw new UserError(
        `cannot pair ${inputs[0].name} (${describeEnvironment(base)}) with ${r.name} (${describeEnvironment(other)}): runs of different environments are not comparable`,
      );
    }
  }
}

/** The comparison itself: pure over loaded runs, deterministic for a seed. */
export function ablate(inputs: readonly AblationInput[], options: AblationOptions = {}): AblationReport {
  if (inputs.length === 0) throw new UserError("give at least one run");
  const resamples = options.resamples ?? SHOWN_INTERVAL.resamples;
  const seed = options.seed ?? SHOWN_INTERVAL.seed;
  const expect = options.expect ?? [];
  const resampling = options.resampling ?? DIRECT_RESAMPLING;
  const warnings: string[] = [];
  checkSameEnvironment(inputs);

  const byId = inputs.map((r) => new Map(r.episodes.map((e) => [e.id, e])));
  const ids = questionOrder([...byId[0].keys()].filter((id) => byId.every((m) => m.has(id))));
  const n = ids.length;
  if (n === 0)
    throw new UserError(
      `the runs share no question ids (${inputs.map((r) => r.name).join(", ")}): were they run on the same split?`,
    );
  const rows = byId.map((m) => ids.map((id) => m.get(id)!));
  inputs.forEach((r) => {
    const dropped = r.episodes.length - n;
    if (dropped > 0)
      warnings.push(
        `${r.name}: ${dropped} of its ${r.episodes.length} questions are not in every run and were left out`,
      );
  });

  // Each role reads the environment's declared metric: the primary one is bootstrapped and
  // sign-flip tested, the binary one McNemar tested (one declaration may hold both roles).
  const roles = environmentRoles(manifestEnvironment(inputs[0].manifest).name);
  const primary = rows.map((eps) => Float64Array.from(eps, (e) => metricValue(e, roles.primary)));
  const binary = rows.map((eps) => Float64Array.from(eps, (e) => metricValue(e, roles.binary)));
  // One joint bootstrap: every run's primary and binary columns share the resampled question indices.
  const owners = [...inputs.keys(), ...inputs.keys()].map((k) => [k]);
  const dist = resampling.bootstrapMeans(
    [...primary, ...binary],
    { resamples, seed, stream: SHOWN_INTERVAL.stream },
    owners,
  );
  const primaryDist = dist.slice(0, inputs.length);
  const binaryDist = dist.slice(inputs.length);

  const runs: AblationRun[] = inputs.map((r, k) => ({
    name: r.name,
    dir: r.dir,
    episodes: r.episodes.length,
    dropped: r.episodes.length - n,
    primary: { mean: mean(primary[k]), ci: percentileInterval(Float64Array.from(primaryDist[k]), LEVEL) },
    binary: { mean: mean(binary[k]), ci: percentileInterval(Float64Array.from(binaryDist[k]), LEVEL) },
    searches_per_q: mean(rows[k].map((e) => e.searches.length)),
    answered: mean(rows[k].map((e) => (e.end === "answer" ? 1 : 0))),
    usd_per_q: mean(rows[k].map((e) => e.usd)),
    usd_total: r.episodes.reduce((s, e) => s + e.usd, 0),
    split: r.manifest?.split
      ? { name: r.manifest.split.name, file: r.manifest.split.file, sha256: r.manifest.split.sha256 }
      : null,
    search: searchSettings(r.manifest),
  }));

  const comparisons = inputs.slice(1).map((r, i): AblationComparison & { p: [number, number] } => {
    const k = i + 1;
    const d = Float64Array.from(primary[k], (v, q) => v - primary[0][q]);
    const sd = sampleSd(d);
    let b = 0;
    let c = 0;
    for (let q = 0; q < n; q++) {
      if (binary[0][q] === 1 && binary[k][q] === 0) b++;
      else if (binary[0][q] === 0 && binary[k][q] === 1) c++;
    }
    const pPrimary = resampling.signFlipTest(d, { resamples, seed, stream: 1 + k }, [0, k]);
    const pBinary = mcnemarExact(b, c);
    const { expected, unexpected } = splitDifferences(inputs[0].manifest, r.manifest, expect);
    return {
      run: k,
      name: r.name,
      primary: {
        delta: mean(primary[k]) - mean(primary[0]),
        ci: deltaInterval(primaryDist[k], primaryDist[0]),
        p: pPrimary,
        p_holm: NaN,
        verdict: "not distinguishable",
        test: "paired sign-flip permutation",
        sd,
        mde: minimumDetectableDelta({ sd, n, alpha: ALPHA, power: POWER }),
      },
      binary: {
        delta: mean(binary[k]) - mean(binary[0]),
        ci: deltaInterval(binaryDist[k], binaryDist[0]),
        p: pBinary,
        p_holm: NaN,
        verdict: "not distinguishable",
        test: "McNemar exact",
        baseline_only: b,
        run_only: c,
      },
      flips: { primary: countFlips(primary[0], primary[k]), binary: countFlips(binary[0], binary[k]) },
      unexpected_differences: unexpected,
      expected_differences: expected,
      p: [pPrimary, pBinary],
    };
  });

  // Holm across the whole table: every primary and binary Δ test is one member of the family.
  const adjusted = holmAdjust(comparisons.flatMap((c) => c.p));
  comparisons.forEach((c, i) => {
    c.primary.p_holm = adjusted[2 * i];
    c.binary.p_holm = adjusted[2 * i + 1];
    c.primary.verdict = verdict(c.primary.p_holm, c.primary.ci);
    c.binary.verdict = verdict(c.binary.p_holm, c.binary.ci);
  });

  warnings.push(
    ...comparabilityWarnings(inputs, comparisons, expect, options.expectAdvice ?? "name it with --expect FIELD"),
  );

  const questions: QuestionRow[] = ids.map((id, q) => ({
    id,
    question: rows[0][q].question,
    answers: rows[0][q].answers,
    prediction: rows.map((eps) => eps[q].prediction),
    primary: primary.map((col) => col[q]),
    binary: binary.map((col) => col[q]),
    flips: comparisons.map((c) => ({
      primary: flip(primary[0][q], primary[c.run][q]),
      binary: flip(binary[0][q], binary[c.run][q]),
    })),
  }));

  return {
    format: ABLATION_FORMAT,
    kind: "agent-lab.ablation",
    created: (options.now ?? new Date()).toISOString(),
    environment: manifestEnvironment(inputs[0].manifest),
    metrics: reportMetrics(roles),
    settings: {
      resamples,
      seed,
      level: LEVEL,
      alpha: ALPHA,
      power: POWER,
      interval: "percentile bootstrap",
      correction: "holm",
      expect: [...expect],
    },
    shared: n,
    runs,
    comparisons: comparisons.map(({ p: _p, ...c }) => c),
    verdict_rule: VERDICT_RULE,
    warnings,
    questions,
  };
}

/** Interval of (mean_run − mean_base) over the joint resamples: paired by construction. */
function deltaInterval(run: Float64Array, base: Float64Array): Interval {
  const d = new Float64Array(run.length);
  for (let r = 0; r < run.length; r++) d[r] = run[r] - base[r];
  return percentileInterval(d, LEVEL);
}

export function verdict(pAdjusted: number, ci: Interval): Verdict {
  if (pAdjusted < ALPHA && ci.lo > 0) return "better";
  if (pAdjusted < ALPHA && ci.hi < 0) return "worse";
  return "not distinguishable";
}

function flip(base: number, run: number): Flip {
  if (run > base + TIE) return "improved";
  if (run < base - TIE) return "regressed";
  return "unchanged";
}

function countFlips(base: Float64Array, run: Float64Array): FlipCounts {
  const out: FlipCounts = { improved: 0, regressed: 0, unchanged: 0 };
  for (let q = 0; q < base.length; q++) out[flip(base[q], run[q])]++;
  return out;
}

function searchSettings(m: RunManifest | undefined): AblationRun["search"] {
  if (!m?.search) return null;
  const documents = m.search.searcher?.documents;
  return {
    closed_book: m.search.closed_book,
    top_k: m.search.top_k,
    max_searches: m.search.max_searches,
    ...(typeof documents === "number" ? { documents } : {}),
  };
}

/** Whether a fingerprint field is covered by an --expect entry (the field or a parent of it). */
export function isExpected(field: string, expect: readonly string[]): boolean {
  return expect.some((e) => field === e || field.startsWith(`${e}.`));
}

function splitDifferences(base: RunManifest | undefined, run: RunManifest | undefined, expect: readonly string[]) {
  const diffs: FieldDifference[] = base && run ? fingerprintDiff(base, run) : [];
  return {
    expected: diffs.filter((d) => isExpected(d.field, expect)),
    unexpected: diffs.filter((d) => !isExpected(d.field, expect)),
  };
}

function comparabilityWarnings(
  inputs: readonly AblationInput[],
  comparisons: readonly AblationComparison[],
  expect: readonly string[],
  advice: string,
): string[] {
  const out: string[] = [];
  for (const r of inputs)
    if (!r.manifest)
      out.push(`${r.name}: no manifest.json, so nothing shows it ran under the same settings as the others`);
  const base = inputs[0].name;
  for (const c of comparisons) {
    if (c.unexpected_differences.length === 0) continue;
    const fields = collapseChildren(c.unexpected_differences)
      .map((d) => `${d.field} (${show(d.a)} → ${show(d.b)})`)
      .join(", ");
    out.push(
      `${c.name} differs from ${base} in more than the thing under test: ${fields}. If a field is what you meant to change, ${advice}.`,
    );
  }
  const differing = new Set(
    comparisons.flatMap((c) => [...c.expected_differences, ...c.unexpected_differences].map((d) => d.field)),
  );
  for (const e of expect) {
    if (inputs.every((r) => r.manifest) && ![...differing].some((f) => isExpected(f, [e])))
      out.push(`--expect ${e}: no run differs from ${base} in that field`);
  }
  return out;
}

/**
 * "search.searcher (null → {…})" instead of one line per field of the searcher: when a parent
 * field is itself listed (an object on one side, null on the other), its sub-fields are dropped.
 */
function collapseChildren(diffs: readonly FieldDifference[]): FieldDifference[] {
  const listed = new Set(diffs.map((d) => d.field));
  const parentListed = (field: string) => {
    const parts = field.split(".");
    for (let i = parts.length - 1; i > 0; i--) if (listed.has(parts.slice(0, i).join("."))) return true;
    return false;
  };
  const hasChildren = (field: string) => diffs.some((d) => d.field.startsWith(`${field}.`));
  return diffs
    .filter((d) => !parentListed(d.field))
    .map((d) =>
      hasChildren(d.field)
        ? { field: d.field, a: d.a === undefined ? OBJECT : d.a, b: d.b === undefined ? OBJECT : d.b }
        : d,
    );
}

/** Stands for an object that fingerprintDiff flattened into sub-fields. */
const OBJECT = Symbol("object");

function show(v: unknown): string {
  if (v === OBJECT) return "{…}";
  const text = JSON.stringify(v) ?? "(absent)";
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
}
