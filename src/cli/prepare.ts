/**
 * `agent-lab prepare [--env ENV] [--hub | --train FILE... --dev|--test FILE...] [--out DIR] [--workspace DIR]`
 * Step 1 of the recipe: the environment's data step (envs/*: `data.prepare`) writes its splits and
 * splits.json (the locked test hash) into its data folder (HotpotQA: config `dataDir`, plus
 * corpus.jsonl; GSM8K: `<dataDir>/gsm8k`), or --out. Without local files it downloads from the
 * Hugging Face hub (HF_ENDPOINT, HF_TOKEN and AGENT_LAB_CACHE are honoured; downloads resume).
 */
import { isAbsolute, join } from "node:path";
import { loadConfig } from "../core/config";
import { UserError } from "../core/errors";
import type { DownloadProgress } from "../core/data/hub";
import { environmentByName } from "../core/envs/registry";
import { parse } from "./args";

const HELP = `usage: agent-lab prepare [--env ENV] [--hub] [--train FILE ... --dev FILE ... | --test FILE ...] [--out DIR] [--workspace DIR]

  --env ENV        task environment (config env): hotpotqa (default), gsm8k (into <dataDir>/gsm8k)
  --test FILE      gsm8k: the official test records (JSONL {question, answer} or .parquet), with --train
  --hub            download hotpotqa/hotpot_qa (distractor) parquet files (default without --train/--dev)
  --train FILE     train records: official JSON list, JSONL, or .parquet (repeat for several files, in order)
  --dev FILE       dev (validation) records, same formats
  --out DIR        data folder (default: the config's dataDir)
  --workspace DIR  folder holding agent-lab.json (default .)`;

export async function run(argv: string[]): Promise<void> {
  const { values } = parse("prepare", argv, {
    hub: { type: "boolean" },
    train: { type: "string", multiple: true },
    dev: { type: "string", multiple: true },
    test: { type: "string", multiple: true },
    env: { type: "string" },
    out: { type: "string" },
    workspace: { type: "string", default: "." },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const workspace = values.workspace!;
  const config = loadConfig(workspace);
  const env = environmentByName(values.env ?? config.env);
  // --dev (HotpotQA's name) and --test (GSM8K's) both give the records val/test come from.
  const held = [...(values.dev ?? []), ...(values.test ?? [])];
  const local = Boolean(values.train?.length || held.length);
  if (local && values.hub) throw new UserError("use either --hub or --train/--dev (GSM8K: --train/--test), not both");
  if (local && !(values.train?.length && held.length)) throw new UserError("--train and --dev go together: give both (GSM8K: --train and --test)");
  const outDir = values.out ?? env.data.dir(isAbsolute(config.dataDir) ? config.dataDir : join(workspace, config.dataDir));
  const lines = await env.data.prepare({
    outDir,
    ...(local ? { train: values.train, test: held } : {}),
    log: (line) => console.error(line),
    onProgress: progressPrinter(),
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
