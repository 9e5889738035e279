/**
 * `agent-lab pipeline [--dir DIR] [--backend local|tinker] [--dry-run] [--yes]` — the whole recipe
 * in one command: data → index → eval (closed-book, base) → SFT data → SFT → eval → GRPO → eval →
 * ablation table. Local (default): offline, free, on the local stand-in backend. Rerun to continue.
 */
import { createInterface } from "node:readline/promises";
import { resolve } from "node:path";
import { UserError } from "../core/errors";
import { runPipeline } from "../core/pipeline/run-pipeline";
import type { PipelineBackend } from "../core/pipeline/settings";
import { interruptible } from "./train-sft";
import { intFlag, parse } from "./args";
import { settingsFor } from "../core/pipeline/settings";

const HELP = `usage: agent-lab pipeline [options]

Runs the whole recipe and prints the ablation table (closed-book, base, SFT, GRPO on val, paired
95% CIs against base) and GRPO's train-reward trend; writes DIR/report.md and DIR/ablation.json.
Every stage is skipped when its outputs are complete and resumed when partial: rerun to continue.

  --dir DIR          pipeline folder (default ./agent-lab-pipeline)
  --backend B        local (default): an invented multi-hop world on the local stand-in backend,
                     offline and free (a tiny CPU model; real results come from Tinker)
                     tinker: HotpotQA from the hub with Qwen/Qwen3.5-4B at the recipe's sizes
                     (needs TINKER_API_KEY; prints the estimated cost and asks before spending)
  --dry-run          print the stages, their sizes, status and estimated cost; run nothing
  --yes              tinker: do not ask before spending
  --local-port P     local: reuse a running agent-lab serve-local on this port (default: start one)
  --resamples N      bootstrap resamples of the comparison (default 10,000)`;

export async function run(argv: string[]): Promise<void> {
  const { values } = parse("pipeline", argv, {
    dir: { type: "string", default: "agent-lab-pipeline" },
    backend: { type: "string", default: "local" },
    "dry-run": { type: "boolean" },
    yes: { type: "boolean" },
    "local-port": { type: "string" },
    resamples: { type: "string" },
    size: { type: "string", default: "full" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const backend = values.backend as PipelineBackend;
  if (backend !== "local" && backend !== "tinker") throw new UserError(`unknown --backend "${values.backend}"; choose local or tinker`);
  if (backend === "tinker" && !values["dry-run"]) {
    // The key is checked before anything is downloaded or written.
    const { resolveApiKey } = await import("../core/tinker/key");
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
  await interruptible(async (signal) => {
    await runPipeline({
      dir: resolve(values.dir!),
      backend,
      settings: settingsFor(backend, values.size === "smoke" ? "smoke" : "full"),
      dryRun: Boolean(values["dry-run"]),
      yes: Boolean(values.yes),
      confirm,
      localPort: intFlag("local-port", values["local-port"], 0),
      resamples: intFlag("resamples", values.resamples, 100),
      signal,
      log: (line) => console.log(line),
    });
  });
}
