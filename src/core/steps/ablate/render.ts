/**
 * Text forms of an ablation: the terminal tables (the recipe's columns plus the new ones) and the
 * recipe's markdown report template, filled in. Metric names are the labels of the declarations
 * the report recorded (`report.metrics`); the dataset, tools and limitation are the environment's.
 */
import { questionsForDelta } from "../../base/stats/power";
import { deltaCell, f3, formatP, intervalText } from "./format";
import { reportEnvironment, type ReportEnvironment } from "./report-environment";
import { oneMetric, type AblationReport } from "./report-types";

export { formatP };

const usd = (x: number) => `$${x.toFixed(4)}`;
const pct = (x: number) => `${Math.round(x * 100)}%`;

function table(header: string[], rows: string[][], leftColumns = 1): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, c) => (c < leftColumns ? cell.padEnd(widths[c]) : cell.padStart(widths[c])))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}

/** The report's environment lines: `env` when the caller resolved them (the synthetic world), else the report's environment's. */
function envOf(report: AblationReport, env?: ReportEnvironment): ReportEnvironment {
  return env ?? reportEnvironment(report.environment);
}

/** The labels of the report's primary and binary metric ("F1", "EM"). */
function labels(report: AblationReport): { p: string; b: string } {
  return { p: report.metrics.primary.label, b: report.metrics.binary.label };
}

/**
 * What `agent-lab ablate` prints. Columns follow the report's metrics: the primary and the binary
 * one side by side; where one right/wrong metric holds both roles, that metric once, tested by
 * McNemar, and searches only where the environment has tools.
 */
export function renderAblationTable(report: AblationReport, environment?: ReportEnvironment): string {
  const env = envOf(report, environment);
  if (oneMetric(report)) return renderOneMetricTable(report, env);
  const { p, b } = labels(report);
  const out: string[] = [];
  const droppedNote = report.runs.some((r) => r.dropped > 0)
    ? ` (dropped: ${report.runs.map((r) => `${r.name} ${r.dropped}`).join(", ")})`
    : "";
  out.push(`${report.shared} shared questions${droppedNote}`);
  out.push("");
  out.push(
    table(
      ["run", p, "95% CI", b, "95% CI", "searches", "answered", "$/q"],
      report.runs.map((r) => [
        r.name,
        f3(r.primary.mean),
        intervalText(r.primary.ci),
        f3(r.binary.mean),
        intervalText(r.binary.ci),
        r.searches_per_q.toFixed(2),
        pct(r.answered),
        usd(r.usd_per_q),
      ]),
    ),
  );
  if (report.comparisons.length > 0) {
    out.push("");
    out.push(`vs ${report.runs[0].name} (paired):`);
    out.push(
      table(
        [
          "run",
          `Δ ${p} [95% CI]`,
          "p",
          "p Holm",
          `Δ ${p} verdict`,
          `MDE ${p}`,
          `Δ ${b} [95% CI]`,
          "b/c",
          "p",
          "p Holm",
          `Δ ${b} verdict`,
        ],
        report.comparisons.map((c) => [
          c.name,
          deltaCell(c.primary),
          formatP(c.primary.p),
          formatP(c.primary.p_holm),
          c.primary.verdict,
          f3(c.primary.mde),
          deltaCell(c.binary),
          `${c.binary.baseline_only}/${c.binary.run_only}`,
          formatP(c.binary.p),
          formatP(c.binary.p_holm),
          c.binary.verdict,
        ]),
      ),
    );
    out.push("");
    out.push(
      table(
        ["flips vs first", `${p} up`, `${p} down`, `${p} same`, `${b} up`, `${b} down`, `${b} same`],
        report.comparisons.map((c) => [
          c.name,
          String(c.flips.primary.improved),
          String(c.flips.primary.regressed),
          String(c.flips.primary.unchanged),
          String(c.flips.binary.improved),
          String(c.flips.binary.regressed),
          String(c.flips.binary.unchanged),
        ]),
      ),
    );
  }
  out.push("");
  out.push(...notes(report));
  if (report.warnings.length > 0) {
    out.push("");
    out.push(...report.warnings.map((w) => `warning: ${w}`));
  }
  return out.join("\n");
}

/** The table for one right/wrong metric in both roles: its binary columns (McNemar), under its label. */
function renderOneMetricTable(report: AblationReport, env: ReportEnvironment): string {
  const m = labels(report).b;
  const out: string[] = [];
  const droppedNote = report.runs.some((r) => r.dropped > 0)
    ? ` (dropped: ${report.runs.map((r) => `${r.name} ${r.dropped}`).join(", ")})`
    : "";
  out.push(`${report.shared} shared questions${droppedNote}`, "");
  out.push(
    table(
      ["run", m, "95% CI", ...(env.hasTools ? ["searches"] : []), "answered", "$/q"],
      report.runs.map((r) => [
        r.name,
        f3(r.binary.mean),
        intervalText(r.binary.ci),
        ...(env.hasTools ? [r.searches_per_q.toFixed(2)] : []),
        pct(r.answered),
        usd(r.usd_per_q),
      ]),
    ),
  );
  if (report.comparisons.length > 0) {
    out.push("", `vs ${report.runs[0].name} (paired):`);
    out.push(
      table(
        ["run", `Δ ${m} [95% CI]`, "b/c", "p", "p Holm", "verdict", `MDE ${m}`, "up", "down", "same"],
        report.comparisons.map((c) => [
          c.name,
          deltaCell(c.binary),
          `${c.binary.baseline_only}/${c.binary.run_only}`,
          formatP(c.binary.p),
          formatP(c.binary.p_holm),
          c.binary.verdict,
          // One metric in both roles: the primary role's MDE is this metric's.
          f3(c.primary.mde),
          String(c.flips.binary.improved),
          String(c.flips.binary.regressed),
          String(c.flips.binary.unchanged),
        ]),
      ),
    );
  }
  out.push("", ...notes(report));
  if (report.warnings.length > 0) out.push("", ...report.warnings.map((w) => `warning: ${w}`));
  return out.join("\n");
}

/** How the numbers were made, in a few lines (printed under the table and in the report). */
function notes(report: AblationReport): string[] {
  const s = report.settings;
  const lines = [
    `Intervals: ${s.level * 100}% percentile bootstrap, ${s.resamples.toLocaleString("en-US")} resamples, seed ${s.seed}; Δ intervals are paired (the same resampled questions for every run).`,
  ];
  const { p, b } = labels(report);
  if (oneMetric(report) && report.comparisons.length > 0) {
    const m = b; // the one metric, under its binary role (its tests are McNemar's)
    const tests = report.comparisons.length * 2;
    lines.push(
      `p: Δ ${m} by McNemar's exact test (b/c = questions only the first run / only this run got right; up/down/same count them per question); ` +
        `Holm-adjusted over ${tests} tests, the sign-flip test of the same 0/1 scores included, so p Holm is conservative.`,
      `Verdict: ${report.verdict_rule}`,
      `MDE ${m}: the smallest true Δ this many paired questions (${report.shared}) detects with ${s.power * 100}% power at α = ${s.alpha} ` +
        `(two-sided, normal approximation, from the observed SD of the per-question differences).`,
    );
    const planning = planningCounts(report);
    if (planning.length > 0)
      lines.push(
        `Paired questions needed to detect Δ ${m} = 0.02 at that SD: ${planning.join(", ")} (a quarter of that for 0.04).`,
      );
    return lines;
  }
  if (report.comparisons.length > 0) {
    const tests = report.comparisons.length * 2;
    lines.push(
      `p: Δ ${p} by a paired sign-flip permutation test (${s.resamples.toLocaleString("en-US")} draws), Δ ${b} by McNemar's exact test ` +
        `(b/c = questions only the first run / only this run got right); Holm-adjusted over all ${tests} tests.`,
      `Verdict: ${report.verdict_rule}`,
      `MDE ${p}: the smallest true Δ ${p} this many paired questions (${report.shared}) detects with ${s.power * 100}% power at α = ${s.alpha} ` +
        `(two-sided, normal approximation, from the observed SD of the per-question differences).`,
    );
    const planning = planningCounts(report);
    if (planning.length > 0)
      lines.push(
        `Paired questions needed to detect Δ ${p} = 0.02 at that SD: ${planning.join(", ")} (a quarter of that for 0.04).`,
      );
  }
  return lines;
}

/** Per comparison with spread: the paired questions that detect a Δ of 0.02 in the primary metric. */
function planningCounts(report: AblationReport): string[] {
  return report.comparisons
    .filter((c) => c.primary.sd > 0)
    .map((c) => `${c.name} ${questionsForDelta({ sd: c.primary.sd, delta: 0.02 }).toLocaleString("en-US")}`);
}

export interface MarkdownOptions {
  /** Stage labels per run (default: the run names). */
  labels?: string[];
  /** The environment's heading, tools and limitation (default: the report's environment's, report-environment.ts). */
  environment?: ReportEnvironment;
}

/** The recipe's "Report template", filled in from the ablation and the runs' manifests. */
export function renderMarkdownReport(report: AblationReport, options: MarkdownOptions = {}): string {
  const env = envOf(report, options.environment);
  if (oneMetric(report)) return renderOneMetricMarkdown(report, env, options.labels);
  const { p, b } = labels(report);
  const runs = report.runs;
  const first = runs[0];
  const withSearch = runs.find((r) => r.search && !r.search.closed_book)?.search ?? null;
  const split = first.split;
  const splitName = split?.name ?? "the shared questions";
  const facts = [`${report.shared} questions`];
  if (withSearch?.documents !== undefined) facts.push(`${compactCount(withSearch.documents)}-paragraph corpus`);
  if (withSearch) facts.push(`BM25 top-${withSearch.top_k}`, `budget of ${withSearch.max_searches} searches`);
  const out: string[] = [];
  out.push(`## Results on ${env.dataset} ${splitName} (${facts.join(", ")})`);
  out.push("");
  const header = [
    "Stage",
    `${p} [95% CI]`,
    b,
    "Searches/q",
    "$/q",
    `Δ ${p} vs ${first.name} [95% CI]`,
    "p (Holm)",
    "Verdict",
  ];
  out.push(`| ${header.join(" | ")} |`);
  out.push(`|${header.map((h) => "-".repeat(h.length + 2)).join("|")}|`);
  runs.forEach((r, k) => {
    const c = report.comparisons.find((x) => x.run === k);
    const label = escapeCell(options.labels?.[k] ?? r.name);
    out.push(
      `| ${[
        label,
        `${f3(r.primary.mean)} [${f3(r.primary.ci.lo)}, ${f3(r.primary.ci.hi)}]`,
        f3(r.binary.mean),
        r.searches_per_q.toFixed(2),
        usd(r.usd_per_q),
        c ? deltaCell(c.primary) : "(baseline)",
        c ? formatP(c.primary.p_holm) : "",
        c ? c.primary.verdict : "",
      ].join(" | ")} |`,
    );
  });
  out.push(...reportFooter(report, env));
  return out.join("\n") + "\n";
}

/** Cost, split hash, the limitation line, the notes and the warnings: under every report's table. */
function reportFooter(report: AblationReport, env: ReportEnvironment): string[] {
  const out: string[] = [""];
  const runs = report.runs;
  const split = runs[0].split;
  const total = runs.reduce((s, r) => s + r.usd_total, 0);
  const shas = [...new Set(runs.map((r) => r.split?.sha256).filter((x): x is string => Boolean(x)))];
  const shaText =
    shas.length === 0
      ? "(no manifests)"
      : shas.map((h) => h.slice(0, 16)).join(" / ") + (shas.length > 1 ? " (runs used different files!)" : "");
  // Paragraphs of their own: consecutive markdown lines render as one run-on line in a preview.
  out.push(`Total Tinker cost: $${total.toFixed(2)} · ${split?.file ?? "split"} sha256: ${shaText}`);
  if (env.limitation) out.push("", `Limitation: ${env.limitation}`);
  out.push("");
  out.push(...notes(report).map((l) => `${l}  `));
  if (report.warnings.length > 0) {
    out.push("");
    out.push(...report.warnings.map((w) => `> Warning: ${escapeCell(w)}`));
  }
  return out;
}

/** The report for one right/wrong metric in both roles: that metric once, no pair of columns, searches only with tools. */
function renderOneMetricMarkdown(report: AblationReport, env: ReportEnvironment, stages: string[] | undefined): string {
  const runs = report.runs;
  const first = runs[0];
  const m = labels(report).b;
  const out: string[] = [];
  out.push(
    `## Results on ${env.dataset} ${first.split?.name ?? "the shared questions"} (${report.shared} questions)`,
    "",
  );
  const header = [
    "Stage",
    `${m} [95% CI]`,
    ...(env.hasTools ? ["Searches/q"] : []),
    "$/q",
    `Δ ${m} vs ${first.name} [95% CI]`,
    "p (Holm)",
    "Verdict",
  ];
  out.push(`| ${header.join(" | ")} |`);
  out.push(`|${header.map((h) => "-".repeat(h.length + 2)).join("|")}|`);
  runs.forEach((r, k) => {
    const c = report.comparisons.find((x) => x.run === k);
    const cells = [
      escapeCell(stages?.[k] ?? r.name),
      `${f3(r.binary.mean)} [${f3(r.binary.ci.lo)}, ${f3(r.binary.ci.hi)}]`,
      ...(env.hasTools ? [r.searches_per_q.toFixed(2)] : []),
      usd(r.usd_per_q),
      c ? deltaCell(c.binary) : "(baseline)",
      c ? formatP(c.binary.p_holm) : "",
      c ? c.binary.verdict : "",
    ];
    out.push(`| ${cells.join(" | ")} |`);
  });
  out.push(...reportFooter(report, env));
  return out.join("\n") + "\n";
}

/** 507000 → "507k", as in the recipe's heading. */
function compactCount(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1).replace(/\.0$/, "")}M`;
  if (n >= 1e3) return `${Math.round(n / 1e3)}k`;
  return String(n);
}

/** Run names come from folder names: keep them from breaking a table row. */
function escapeCell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}
