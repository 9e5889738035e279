/**
 * `agent-lab score FILE [--per-line OUT]`: the mean of each metric of a JSONL file whose lines have
 * `prediction` and `answers` (other fields are ignored, and kept in --per-line output), by the
 * metrics of an environment that declares how to score a bare prediction (`scorePrediction`).
 * `agent-lab score RUN_DIR`: rescores a run folder in place through its environment (rescoreRun).
 */
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { FileFormatError, UserError } from "../core/base/errors";
import { metricValue, type MetricDeclaration } from "../core/base/runs/metrics";
import { ENVIRONMENTS } from "../core/envs/registry";
import type { EnvItem, Environment } from "../core/harness/environment";
import { SCORE_STEP } from "../core/steps/catalog/catalog";
import { parseStepArgs } from "./step-args";

export interface ScoredFile {
  n: number;
  /** The mean of each declared metric, by name. */
  metrics: Record<string, number>;
  rows: Record<string, unknown>[];
}

/**
 * The environment a JSONL file of predictions is scored by: the workspace's when it declares a
 * prediction scorer, else the first environment that does.
 */
export function predictionScoring(configured: string): Environment<EnvItem> {
  const scoring = ENVIRONMENTS.filter((e) => e.scorePrediction);
  const env = scoring.find((e) => e.name === configured) ?? scoring[0];
  if (!env) throw new UserError("no environment scores bare predictions: give a RUN_DIR to rescore instead");
  return env;
}

/** Scores every line; a line without a string `prediction` or a list of string `answers` is a FileFormatError. */
export function scoreJsonlFile(file: string, env: Environment<EnvItem>): ScoredFile {
  const lines = readFileSync(file, "utf8").split("\n");
  const scored: { row: Record<string, unknown>; metrics: Record<string, number> }[] = [];
  lines.forEach((text, i) => {
    if (!text.trim()) return;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      throw new FileFormatError(file, i + 1, `not valid JSON (${(e as Error).message})`);
    }
    if (typeof raw !== "object" || raw === null || Array.isArray(raw))
      throw new FileFormatError(file, i + 1, "expected a JSON object");
    const row = raw as Record<string, unknown>;
    if (typeof row.prediction !== "string") throw new FileFormatError(file, i + 1, 'missing "prediction" string');
    const answers = row.answers;
    if (!Array.isArray(answers) || !answers.every((a) => typeof a === "string")) {
      throw new FileFormatError(file, i + 1, 'missing "answers" list of strings');
    }
    scored.push({ row, metrics: env.scorePrediction!(row.prediction, answers) });
  });
  const n = scored.length;
  const mean = (m: MetricDeclaration) => (n ? scored.reduce((s, r) => s + metricValue(r, m), 0) / n : 0);
  return {
    n,
    metrics: Object.fromEntries(env.metrics.map((m) => [m.name, mean(m)])),
    // --per-line adds each metric beside the input's own fields.
    rows: scored.map(({ row, metrics }) => ({ ...row, ...metrics })),
  };
}

/** "EM 0.500  F1 0.900": each declared metric's label and mean, in declaration order. */
function metricsLine(declared: readonly MetricDeclaration[], means: { metrics: Readonly<Record<string, number>> }) {
  return declared.map((m) => `${m.label} ${metricValue(means, m).toFixed(3)}`).join("  ");
}

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(SCORE_STEP, argv);
  if (!args) return;
  const { values, positionals, config } = args;
  if (positionals.length !== 1)
    throw new UserError(
      `give one FILE (JSONL with "prediction" and "answers" on every line) or one RUN_DIR (rescored in place); see agent-lab score --help`,
    );
  const target = positionals[0];
  if (!existsSync(target)) throw new UserError(`${target}: no such file`);
  if (statSync(target).isDirectory()) {
    // a run folder: the eval module rescores its episodes in place and updates its summary
    if (values["per-line"]) throw new UserError("--per-line is for a JSONL file; a run folder is rescored in place");
    const { rescoreRun } = await import("../core/steps/eval/rescore");
    const r = rescoreRun(target);
    console.log(
      `${metricsLine(r.env.metrics, r.summary)}  n ${r.summary.n}  (${r.changed} episode${r.changed === 1 ? "" : "s"} changed; episodes.jsonl and summary.json rewritten)`,
    );
    return;
  }
  const env = predictionScoring(config.env);
  const result = scoreJsonlFile(target, env);
  if (values["per-line"]) {
    writeFileSync(values["per-line"], result.rows.map((r) => JSON.stringify(r) + "\n").join(""));
  }
  console.log(`${metricsLine(env.metrics, result)}  n ${result.n}`);
}
