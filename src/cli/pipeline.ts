/**
 * `agent-lab pipeline [--dir DIR] [--env ENV] [--backend local|tinker] [--rehearse] [--train FILE --dev FILE]
 * [--dry-run] [--yes]` — the whole recipe in one command: data → index → eval (closed-book, base) →
 * SFT data → SFT → eval → GRPO → eval → ablation table. Local (default): offline, free, on the local
 * stand-in backend, on the environment's invented world (`--env`: the catalog's environments that
 * declare one). `--backend tinker --rehearse`: the paid path at tiny sizes. Rerun to continue.
 */
import { createInterface } from "node:readline/promises";
import { resolve } from "node:path";
import { UserError } from "../core/base/errors";
import { refuseWriteIntoRun } from "../core/base/runs/run-folder";
import { runPipeline } from "../core/steps/pipeline/run-pipeline";
import { settingsFor, type PipelineBackend, type PipelineFiles } from "../core/steps/pipeline/settings";
import { PIPELINE_STEP } from "../core/steps/catalog/catalog";
import { parseStepArgs } from "./step-args";
import { interruptible } from "./interruptible";
import { startLocalBackend } from "./local-backend";

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(PIPELINE_STEP, argv);
  if (!args) return;
  const { values } = args;
  const backend = values.backend as PipelineBackend;
  const local = values.train.length > 0 || values.dev.length > 0;
  if (local && !(values.train.length && values.dev.length))
    throw new UserError("--train and --dev go together: give both");
  // Absolute, so a rerun from another folder continues the same pipeline (its settings name the files).
  const files: PipelineFiles | undefined = local
    ? { source: "files", train: values.train.map((p) => resolve(p)), dev: values.dev.map((p) => resolve(p)) }
    : undefined;
  const settings = settingsFor(backend, {
    env: values.env,
    size: values.size === "smoke" ? "smoke" : "full",
    rehearse: values.rehearse,
    files,
  });
  if (backend === "tinker" && !values["dry-run"]) {
    // The key is checked before anything is downloaded or written.
    const { resolveApiKey } = await import("../core/base/tinker/key");
    resolveApiKey(undefined);
  }
  const confirm = process.stdin.isTTY
    ? async (question: string) => {
        const rl = createInterface({ input: process.stdin, output: process.stdout });
        try {
          return /^y(es)?$/i.test((await rl.question(question)).trim());
        } finally {
          rl.close();
        }
      }
    : undefined;
  refuseWriteIntoRun(values.dir, { flag: "--dir" });
  await interruptible(async (signal) => {
    await runPipeline({
      startLocalBackend,
      dir: resolve(values.dir),
      backend,
      settings,
      dryRun: Boolean(values["dry-run"]),
      yes: Boolean(values.yes),
      confirm,
      localPort: values["local-port"],
      resamples: values.resamples,
      signal,
      log: (line) => console.log(line),
    });
  });
}
