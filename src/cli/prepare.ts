/**
 * `agent-lab prepare [--env ENV] [--hub | --train FILE... --dev|--test FILE...] [--out DIR] [--replace-test-split]`
 * Step 1 of the recipe: the environment's data step (envs/*: `data.prepare`) writes its splits and
 * the locked test hash (HotpotQA: train/val/test/corpus.jsonl into the config's dataDir). Without
 * local files it downloads from the Hugging Face hub (HF_ENDPOINT, HF_TOKEN, AGENT_LAB_CACHE honoured).
 */
import { isAbsolute, join } from "node:path";
import { UserError } from "../core/base/errors";
import type { DownloadProgress } from "../core/base/data/hub";
import { environmentByName } from "../core/envs/registry";
import { PREPARE_STEP } from "../core/steps/catalog/catalog";
import { parseStepArgs } from "./step-args";

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(PREPARE_STEP, argv);
  if (!args) return;
  const { values, config, workspaceDir } = args;
  const env = environmentByName(values.env);
  // --dev (HotpotQA's name) and --test (GSM8K's) both give the records val/test come from.
  const held = [...values.dev, ...values.test];
  const local = values.train.length > 0 || held.length > 0;
  if (local && values.hub) throw new UserError("use either --hub or --train/--dev (GSM8K: --train/--test), not both");
  if (local && !(values.train.length && held.length))
    throw new UserError("--train and --dev go together: give both (GSM8K: --train and --test)");
  const outDir =
    values.out ?? env.data.dir(isAbsolute(config.dataDir) ? config.dataDir : join(workspaceDir, config.dataDir));
  const lines = await env.data.prepare({
    outDir,
    ...(local ? { train: values.train, test: held } : {}),
    log: (line) => console.error(line),
    onProgress: progressPrinter(),
    replaceTestSplit: values["replace-test-split"],
  });
  for (const line of lines) console.log(line);
}

/** Throttled one-line progress on stderr (a terminal gets a rewriting line, a log gets a line per file step). */
function progressPrinter(): (p: DownloadProgress) => void {
  const mb = (b: number) => (b / 1e6).toFixed(1);
  let last = "";
  return (p) => {
    const pct = p.total ? ` ${((100 * p.received) / p.total).toFixed(0)}%` : "";
    const line = `downloading ${p.file} ${mb(p.received)}${p.total ? `/${mb(p.total)}` : ""} MB${pct}`;
    if (process.stderr.isTTY) process.stderr.write(`\r${line}\x1b[K${p.total && p.received >= p.total ? "\n" : ""}`);
    else if (pct !== last) {
      last = pct;
      if (!p.total || Math.round((100 * p.received) / p.total) % 10 === 0) console.error(line);
    }
  };
}
