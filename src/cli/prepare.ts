/**
 * `agent-lab prepare [--hub | --train FILE... --dev FILE...] [--out DIR] [--workspace DIR]`
 * Step 1 of the recipe: writes train/val/test/corpus.jsonl and splits.json into the data folder
 * (config `dataDir`, or --out). Without local files it downloads HotpotQA from the Hugging Face hub
 * (HF_ENDPOINT, HF_TOKEN and AGENT_LAB_CACHE are honoured; downloads resume).
 */
import { isAbsolute, join } from "node:path";
import { loadConfig } from "../core/config";
import { UserError } from "../core/errors";
import { downloadHotpotQA, type DownloadProgress } from "../core/data/hub";
import { PUBLISHED_TEST_SHA256_PREFIX, prepareData } from "../core/data/prepare";
import { environmentByName } from "../core/envs/registry";
import { HOTPOTQA_NAME } from "../core/envs/hotpotqa";
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
  const env = environmentByName(values.env ?? loadConfig(workspace).env);
  if (env.name !== HOTPOTQA_NAME) return prepareEnvironment(env, values, workspace);
  if (values.test?.length) throw new UserError("--test is for environments with an official test file (e.g. --env gsm8k); HotpotQA takes --train and --dev");
  const local = Boolean(values.train?.length || values.dev?.length);
  if (local && values.hub) throw new UserError("use either --hub or --train/--dev, not both");
  if (local && !(values.train?.length && values.dev?.length)) throw new UserError("--train and --dev go together: give both");
  const outDir = values.out ?? (() => {
    const dataDir = loadConfig(workspace).dataDir;
    return isAbsolute(dataDir) ? dataDir : join(workspace, dataDir);
  })();

  const log = (line: string) => console.error(line);
  let input: { trainFiles: string[]; devFiles: string[]; source: string };
  if (local) {
    input = { trainFiles: values.train!, devFiles: values.dev!, source: `local files: train ${values.train!.join(", ")}; dev ${values.dev!.join(", ")}` };
  } else {
    const got = await downloadHotpotQA({ onProgress: progressPrinter(), log });
    input = { trainFiles: got.train, devFiles: got.dev, source: got.description };
  }
  const result = await prepareData(outDir, input, log);
  for (const note of result.notes) console.error(`note: ${note}`);
  const n = (x: number) => x.toLocaleString("en-US");
  const { corpus, train, val, test } = result.counts;
  console.log(`corpus ${n(corpus)} paragraphs | train ${n(train)} | val ${n(val)} | test ${n(test)}`);
  const short = result.testSha256.slice(0, 16);
  const verdict = short === PUBLISHED_TEST_SHA256_PREFIX ? "matches the recipe's published hash" : `the recipe's full dataset gives ${PUBLISHED_TEST_SHA256_PREFIX}`;
  console.log(`test.jsonl sha256 ${short}  (${verdict}; recorded in ${join(outDir, "splits.json")})`);
}

/** Any other environment: its own data step, into its folder under the data folder (or --out). */
async function prepareEnvironment(
  env: ReturnType<typeof environmentByName>,
  values: { train?: string[]; dev?: string[]; test?: string[]; hub?: boolean; out?: string },
  workspace: string,
): Promise<void> {
  if (values.dev?.length) throw new UserError(`--dev is HotpotQA's; --env ${env.name} takes --train and --test`);
  if (values.hub && (values.train?.length || values.test?.length)) throw new UserError("use either --hub or --train/--test, not both");
  const dataDir = loadConfig(workspace).dataDir;
  const outDir = values.out ?? env.data.dir(isAbsolute(dataDir) ? dataDir : join(workspace, dataDir));
  const lines = await env.data.prepare({ outDir, train: values.train, test: values.test, log: (l) => console.error(l), onProgress: progressPrinter() });
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
