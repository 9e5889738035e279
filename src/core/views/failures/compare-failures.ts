/**
 * Which failures a change fixed: for each failure label, its count in each run and, on the questions
 * every run shares, the paired change in the share of questions with that label against the first
 * run — a 95% percentile bootstrap interval (one draw of question indices per resample for every
 * run and label, as ablate pairs its metrics), McNemar's exact test on the questions that gained or
 * lost the label, and Holm's adjustment across every label and run. "The prompt edit removed 23
 * answer_too_long (−11.5 pts [−16.0, −7.0])". Labels come from the runs as read
 * (views/failures), never from their files.
 */
import { bootstrapMeans, mean, percentileInterval, type Interval } from "../../base/stats/bootstrap";
import { DEFAULT_RESAMPLES } from "../../base/stats/resamples";
import { holmAdjust, mcnemarExact } from "../../base/stats/significance";
import type { FailureLabelDeclaration, FailureVerdict } from "../../harness/failures";
import { ALPHA, checkSameEnvironment, LEVEL, verdict } from "../../steps/ablate/ablate";
import { manifestEnvironment } from "../../envs/manifest-environment";
import type { RunManifest } from "../../base/runs/manifest";
import type { EpisodeRecord } from "../../base/runs/run-files";
import { failureLabels } from "../../envs/registry";
import { readRunFailures } from "./run-failures";
import { formatP } from "../../steps/ablate/format";

/** One run's labels, as read. */
export interface LabelledRun {
  name: string;
  /** Every episode id of the run (its failed ones are in byId). */
  ids: readonly string[];
  byId: ReadonlyMap<string, FailureVerdict>;
}

/** One label's change in one run against the first. */
export interface LabelChange {
  run: number;
  name: string;
  /** Shared questions with the label in the first run and not in this one (fixed), and the reverse (new). */
  fixed: number;
  introduced: number;
  /** Share of shared questions with the label, this run minus the first (a fraction; ×100 = points). */
  delta: number;
  ci: Interval;
  p: number;
  p_holm: number;
  /** ablate's verdict rule on the share of questions with the label: "fewer" is a failure fixed. */
  verdict: "fewer" | "more" | "not distinguishable";
}

export interface LabelRow {
  label: string;
  description: string;
  /** Episodes with the label in each run (all its episodes, shared or not). */
  counts: number[];
  /** Questions with the label among the shared ones, per run. */
  shared_counts: number[];
  changes: LabelChange[];
}

export interface FailureComparison {
  runs: string[];
  /** Questions every run answered: the paired changes are computed on these. */
  shared: number;
  resamples: number;
  seed: number;
  level: number;
  rows: LabelRow[];
}

/** The comparison; rows in the declared label order, then largest first-run count. */
export function compareFailures(
  labels: readonly FailureLabelDeclaration[],
  runs: readonly LabelledRun[],
  options: { resamples?: number; seed?: number } = {},
): FailureComparison {
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const seed = options.seed ?? 0;
  const idSets = runs.map((r) => new Set(r.ids));
  const shared = [...runs[0].ids].filter((id) => idSets.every((s) => s.has(id))).sort();
  // One column per (label, run): 1 where that run's episode of the question has the label.
  const column = (label: string, r: LabelledRun) =>
    Float64Array.from(shared, (id) => (r.byId.get(id)?.label === label ? 1 : 0));
  const columns = labels.flatMap((l) => runs.map((r) => column(l.name, r)));
  // Stream 100: apart from ablate's own draws for the same seed.
  const dist = shared.length > 0 ? bootstrapMeans(columns, { resamples, seed, stream: 100 }) : [];
  const rows: LabelRow[] = labels.map((l, li) => {
    const cols = columns.slice(li * runs.length, (li + 1) * runs.length);
    const base = cols[0];
    return {
      label: l.name,
      description: l.description,
      counts: runs.map((r) => r.ids.filter((id) => r.byId.get(id)?.label === l.name).length),
      shared_counts: cols.map((c) => c.reduce((s, x) => s + x, 0)),
      changes: runs.slice(1).map((r, i) => {
        const k = i + 1;
        let fixed = 0;
        let introduced = 0;
        for (let q = 0; q < shared.length; q++) {
          if (base[q] === 1 && cols[k][q] === 0) fixed++;
          else if (base[q] === 0 && cols[k][q] === 1) introduced++;
        }
        const d = new Float64Array(resamples);
        if (shared.length > 0) {
          const [b, x] = [dist[li * runs.length], dist[li * runs.length + k]];
          for (let s = 0; s < resamples; s++) d[s] = x[s] - b[s];
        }
        return {
          run: k,
          name: r.name,
          fixed,
          introduced,
          delta: shared.length > 0 ? mean(cols[k]) - mean(base) : 0,
          ci: shared.length > 0 ? percentileInterval(d, LEVEL) : { lo: 0, hi: 0 },
          p: mcnemarExact(fixed, introduced),
          p_holm: NaN,
          verdict: "not distinguishable",
        };
      }),
    };
  });
  const all = rows.flatMap((r) => r.changes);
  holmAdjust(all.map((c) => c.p)).forEach((p, i) => {
    all[i].p_holm = p;
    const v = verdict(p, all[i].ci);
    all[i].verdict = v === "better" ? "more" : v === "worse" ? "fewer" : v;
  });
  return { runs: runs.map((r) => r.name), shared: shared.length, resamples, seed, level: LEVEL, rows };
}

const pts = (x: number) => `${x > 0 ? "+" : x < 0 ? "−" : ""}${Math.abs(100 * x).toFixed(1)}`;

/** "removed 23 answer_too_long (−11.5 pts [−16.0, −7.0])": the change's one-line summary. */
export function changeSentence(label: string, c: LabelChange): string {
  const net = c.fixed - c.introduced;
  const verb = net > 0 ? `removed ${net}` : net < 0 ? `added ${-net}` : "left the count of";
  return `${verb} ${label} (${pts(c.delta)} pts [${pts(c.ci.lo)}, ${pts(c.ci.hi)}])`;
}

/** The Markdown table `ablate --report` appends, one row per label with a count in any run. */
export function renderFailureComparisonMarkdown(cmp: FailureComparison, names: readonly string[] = cmp.runs): string {
  const esc = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
  const out = [
    `## Failure labels (${cmp.shared} shared questions; paired ${cmp.level * 100}% intervals, McNemar, Holm across labels)`,
    "",
  ];
  const header = [
    "Label",
    ...names.map((n) => esc(n)),
    ...names.slice(1).map((n) => `Δ share ${esc(n)} [95% CI]`),
    ...names.slice(1).map((n) => `p (Holm) ${esc(n)}`),
  ];
  out.push(`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`);
  for (const r of cmp.rows) {
    if (r.counts.every((c) => c === 0)) continue;
    out.push(
      `| ${[
        r.label,
        ...r.counts.map(String),
        ...r.changes.map((c) => `${pts(c.delta)} pts [${pts(c.ci.lo)}, ${pts(c.ci.hi)}]`),
        ...r.changes.map((c) => `${formatP(c.p_holm)}${c.p_holm < ALPHA ? " *" : ""}`),
      ].join(" | ")} |`,
    );
  }
  const lines = cmp.rows.flatMap((r) =>
    r.changes
      .filter((c) => c.fixed + c.introduced > 0)
      .map((c) => `- ${esc(names[c.run])} ${changeSentence(r.label, c)}`),
  );
  if (lines.length > 0) out.push("", ...lines);
  return out.join("\n") + "\n";
}

/** One run folder's records, as readRun gives them. */
export interface RunToLabel {
  name: string;
  manifest: RunManifest | undefined;
  episodes: readonly EpisodeRecord[];
}

/**
 * Labels each run (views/failures/run-failures.ts) and compares them; undefined when their
 * environment declares no labels. Runs of different environments are refused as ablate refuses them.
 */
export async function compareRunFailures(
  runs: readonly RunToLabel[],
  o: { dataDir?: string; resamples?: number; seed?: number },
): Promise<FailureComparison | undefined> {
  checkSameEnvironment(runs);
  const rules = failureLabels(manifestEnvironment(runs[0]?.manifest).name);
  if (!rules || runs.length === 0) return undefined;
  const labelled: LabelledRun[] = [];
  for (const r of runs) {
    const f = await readRunFailures({ manifest: r.manifest, episodes: r.episodes, dataDir: o.dataDir });
    labelled.push({ name: r.name, ids: r.episodes.map((e) => e.id), byId: f?.byId ?? new Map() });
  }
  return compareFailures(rules.labels, labelled, o);
}
