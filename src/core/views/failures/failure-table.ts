/**
 * A run's failures, labelled by its environment's rules (harness/failures.ts) and counted: what
 * `show --failures` prints, the Runs tree groups by, the trace viewer filters by and Compare pairs.
 * Computed when the run is read, never written into it.
 */
import type { EpisodeRecord } from "../../base/runs/run-files";
import type { EpisodeTexts, FailureLabelDeclaration, FailureLabels, FailureVerdict } from "../../harness/failures";

/** The format of `show --failures --json` (bumped when a field changes meaning). */
export const FAILURES_FORMAT = 1;

/** Example episode ids a table row names. */
export const EXAMPLES_PER_LABEL = 3;

/** One label's row. */
export interface FailureRow {
  label: string;
  description: string;
  count: number;
  /** count / all episodes of the run (not only the failed ones). */
  share: number;
  /** The first episodes (in the run's order) with this label. */
  examples: string[];
  /** Sub-labels with their counts, largest first; empty when the rules give none. */
  sub_labels: { name: string; count: number }[];
}

export interface FailureTable {
  format: typeof FAILURES_FORMAT;
  kind: "agent-lab.failures";
  environment: string;
  /** The rules' version (FailureLabels.version). */
  rules_version: string;
  episodes: number;
  /** Episodes with a label: the rows' counts sum to it. */
  failed: number;
  /** Every declared label, largest count first (ties in declared order), zero counts included. */
  rows: FailureRow[];
}

/** Each episode's verdict (null: it did not fail), in the records' order. */
export function labelEpisodes<D>(
  rules: FailureLabels<D>,
  records: readonly EpisodeRecord[],
  texts: (record: EpisodeRecord) => EpisodeTexts,
  data: D | undefined,
): (FailureVerdict | null)[] {
  return records.map((record) => rules.label({ record, texts: texts(record) }, data));
}

/** The rows, largest first; a verdict naming an undeclared label is a programming error in the rules. */
export function failureTable(
  environment: string,
  rules: Pick<FailureLabels, "version" | "labels">,
  records: readonly Pick<EpisodeRecord, "id">[],
  verdicts: readonly (FailureVerdict | null)[],
): FailureTable {
  const rows = new Map<string, FailureRow & { subs: Map<string, number> }>(
    rules.labels.map((l: FailureLabelDeclaration) => [
      l.name,
      { label: l.name, description: l.description, count: 0, share: 0, examples: [], sub_labels: [], subs: new Map() },
    ]),
  );
  verdicts.forEach((v, i) => {
    if (!v) return;
    const row = rows.get(v.label);
    if (!row) throw new Error(`${environment}'s failure rules gave "${v.label}", which they do not declare`);
    row.count++;
    if (row.examples.length < EXAMPLES_PER_LABEL) row.examples.push(records[i].id);
    if (v.subLabel !== undefined) row.subs.set(v.subLabel, (row.subs.get(v.subLabel) ?? 0) + 1);
  });
  const n = records.length;
  const order = rules.labels.map((l) => l.name);
  const list = [...rows.values()]
    .map(({ subs, ...row }) => ({
      ...row,
      share: n > 0 ? row.count / n : 0,
      sub_labels: [...subs].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count),
    }))
    .sort((a, b) => b.count - a.count || order.indexOf(a.label) - order.indexOf(b.label));
  return {
    format: FAILURES_FORMAT,
    kind: "agent-lab.failures",
    environment,
    rules_version: rules.version,
    episodes: n,
    failed: list.reduce((s, r) => s + r.count, 0),
    rows: list,
  };
}

/** The table as `show --failures` prints it. */
export function renderFailureTable(t: FailureTable, runName: string): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const width = Math.max(5, ...t.rows.map((r) => r.label.length));
  const lines = [
    `${runName}: ${t.failed} of ${t.episodes} episodes failed (${t.environment}'s failure labels, rules v${t.rules_version})`,
    `${"label".padEnd(width)}  ${"count".padStart(5)}  ${"share".padStart(6)}  examples`,
  ];
  for (const r of t.rows) {
    lines.push(
      `${r.label.padEnd(width)}  ${String(r.count).padStart(5)}  ${pct(r.share).padStart(6)}  ${r.examples.join(", ") || "-"}`,
    );
    if (r.sub_labels.length > 0)
      lines.push(`${"".padEnd(width)}  ${r.sub_labels.map((s) => `${s.name} ${s.count}`).join(", ")}`);
  }
  return lines.join("\n");
}
