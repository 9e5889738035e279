/**
 * `agent-lab demo [--dir DIR]`: the main job on an embedded default, with no account and no
 * network. Generates a synthetic multi-hop dataset, prepares it, builds the index, evaluates a
 * scripted heuristic reader on val with search and closed-book, then shows failures.
 */
import { resolve } from "node:path";
import { UserError } from "../core/base/errors";
import { refuseWriteIntoRun } from "../core/base/runs/run-folder";
import { runDemo } from "../core/steps/demo/run-demo";
import { readRun, readSummary } from "../core/base/runs/run-files";
import { environmentMetrics } from "../core/envs/catalog";
import { finalLine } from "../core/base/runs/summary";
import { renderShow } from "../core/views/trace/trace-text";
import { tokenizerForRun } from "../core/base/runs/run-tokenizer";
import { DEMO_STEP } from "../core/steps/catalog/catalog";
import { parseStepArgs } from "./step-args";
import { traceStyle } from "./show";

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(DEMO_STEP, argv);
  if (!args) return;
  const { values } = args;
  refuseWriteIntoRun(values.dir, { flag: "--dir" });
  const dir = resolve(values.dir);
  console.log(
    [
      "Agent Lab demo: the whole eval pipeline offline, in about a minute.",
      "It is a stand-in: a synthetic dataset of invented entities and a scripted heuristic reader (not a",
      "language model; it never sees the gold answers). Real numbers come from Tinker with Qwen3.5-4B.",
      `Folder: ${dir}`,
      "",
    ].join("\n"),
  );
  const controller = new AbortController();
  const onSignal = () =>
    controller.signal.aborted ? process.exit(130) : controller.abort(new UserError("interrupted"));
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    const r = await runDemo({
      dir,
      log: (l) => console.log(l),
      signal: controller.signal,
      concurrency: values.concurrency,
    });
    console.log("");
    console.log(finalLine("heuristic", r.withSearch.summary));
    console.log(finalLine("closed-book", r.closedBook.summary));
    console.log(`(demo took ${r.seconds.toFixed(1)}s)\n`);
    const files = {
      ...readRun(r.withSearch.runDir, environmentMetrics),
      summary: readSummary(r.withSearch.runDir, environmentMetrics),
    };
    const { tokenizer, problem } = await tokenizerForRun(files.manifest?.tokenizer);
    console.log(
      renderShow(files, {
        name: "heuristic",
        n: 2,
        seed: 0,
        style: traceStyle(process.env, Boolean(process.stdout.isTTY)),
        tokenizer,
        tokenizerProblem: problem,
      }),
    );
    console.log(
      [
        "",
        "Next:",
        `  agent-lab show ${r.withSearch.runDir} --n 5 --seed 1     more failures`,
        `  agent-lab eval --workspace ${dir} --name mine --limit 20   another run (add --resume to finish one)`,
        "  runs are plain files: episodes.jsonl (one line per episode), summary.json, manifest.json (fingerprint)",
      ].join("\n"),
    );
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
