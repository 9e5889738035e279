/**
 * The training dashboard's view of a tinker-cookbook run (apart from the reader: the dashboard's
 * module loads the tokenizer for group episodes, which the Runs view must not load at activation).
 */
import { runXAxes } from "../trace/x-axes";
import { basename, join } from "node:path";
import { RUN_FILES } from "../../base/runs/run-folder";
import { healthByStep, lastLoggedStep, metricSeries, type DashboardView } from "../trace/dashboard-view";
import { cookbookGroups, cookbookTags, readCookbookCheckpoints, readCookbookConfig, readRows } from "./cookbook";
import { cookbookEnvironment } from "./cookbook-environment";
import { runViewSpec } from "../trace/run-view";

/** What a cookbook run's val scores are called when the folder does not say which environment it is. */
export const UNKNOWN_COOKBOOK_METRIC = "score";

/** The training dashboard's view of a cookbook run: its metrics, group health and checkpoints. */
export function cookbookDashboard(dir: string): DashboardView {
  const problems: string[] = [];
  const attempt = <T>(f: () => T, fallback: T): T => {
    try {
      return f();
    } catch (e) {
      problems.push((e as Error).message);
      return fallback;
    }
  };
  const rows = attempt(() => readRows<Record<string, unknown>>(join(dir, RUN_FILES.metrics)), []).filter(
    (r) => r && typeof r === "object",
  );
  const groups = attempt(() => cookbookGroups(dir), []);
  const checkpoints = attempt(() => readCookbookCheckpoints(dir), []);
  const keys = new Set(rows.flatMap((r) => Object.keys(r)));
  const env = cookbookEnvironment(readCookbookConfig(dir) ?? {}, cookbookTags(dir, keys));
  const series = metricSeries(rows);
  return {
    run: basename(dir),
    series,
    groups,
    health: healthByStep(groups),
    checkpoints: checkpoints.map((c) => ({
      name: c.name,
      step: c.batch ?? 0,
      ...(c.epoch !== undefined ? { epoch: c.epoch } : {}),
      otherEvals: [],
      ...(c.sampler_path ? { samplerPath: c.sampler_path } : {}),
    })),
    references: [],
    evalSettings: null,
    questions: {},
    overlays: [],
    xAxes: runXAxes(rows),
    lastStep: lastLoggedStep(series),
    problems,
    // The run's own environment's metric; a folder that names none gets no borrowed name.
    valMetric: env ? runViewSpec(env.name).primary.label : UNKNOWN_COOKBOOK_METRIC,
  };
}
