/**
 * `agent-lab prepare [--hub | --train FILE... --dev FILE...] [--out DIR] [--replace-test-split] [--workspace DIR]`
 * Step 1 of the recipe: writes train/val/test/corpus.jsonl and splits.json into the data folder
 * (config `dataDir`, or --out). Without local files it downloads HotpotQA from the Hugging Face hub
 * (HF_ENDPOINT, HF_TOKEN and AGENT_LAB_CACHE are honoured; downloads resume).
 */
import { isAbsolute, join } from "node:path";
import { UserError } from "../core/errors";
import { downloadHotpotQA, type DownloadProgress } from "../core/data/hub";
import { PUBLISHED_TEST_SHA256_PREFIX, prepareData } from "../core/data/prepare";
import { SPLITS_FILE } from "../core/data/splits";
import { PREPARE_STEP } from "../core/steps/catalog";
import { parseStepArgs } from "./step-args";

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(PREPARE_STEP, argv);
  if (!args) return;
  const { values, config, workspaceDir } = args;
  const local = values.train.length > 0 || values.dev.length > 0;
  if (local && values.hub) throw new UserError("use either --hub or --train/--dev, not both");
  if (local && !(values.train.length && values.dev.length)) throw new UserError("--train and --dev go together: give both");
  const outDir = values.out ?? (isAbsolute(config.dataDir) ? config.dataDir : join(workspaceDir, config.dataDir));

  const log = (line: string) => console.error(line);
  let input: { trainFiles: string[]; devFiles: string[]; source: string };
  if (local) {
    input = { trainFiles: values.train, devFiles: values.dev, source: `local files: train ${values.train.join(", ")}; dev ${values.dev.join(", ")}` };
  } else {
    const got = await downloadHotpotQA({ onProgress: progressPrinter(), log });
    input = { trainFiles: got.train, devFiles: got.dev, source: got.description };
  }
  const result = await prepareData(outDir, input, log, { replaceTestSplit: values["replace-test-split"] });
  for (const note of result.notes) console.error(`note: ${note}`);
  if (result.testReplaced) console.log(`replaced the locked test split (--replace-test-split): ${result.testReplaced}`);
  const n = (x: number) => x.toLocaleString("en-US");
  const { corpus, train, val, test } = result.counts;
  console.log(`corpus ${n(corpus)} paragraphs | train ${n(train)} | val ${n(val)} | test ${n(test)}`);
  const short = result.testSha256.slice(0, 16);
  const verdict = short === PUBLISHED_TEST_SHA256_PREFIX ? "matches the recipe's published hash" : `the recipe's full dataset gives ${PUBLISHED_TEST_SHA256_PREFIX}`;
  console.log(`test.jsonl sha256 ${short}  (${verdict}; recorded in ${join(outDir, SPLITS_FILE)})`);
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
