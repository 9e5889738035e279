/**
 * `agent-lab prepare [--env ENV] [--hub | --train FILE... --dev|--test FILE...] [--corpus FILE] [--out DIR] [--replace-test-split]`
 * Step 1 of the recipe: the environment's data step (envs/*: `data.prepare`) writes its splits and
 * the locked test hash (train/val/test.jsonl and splits.json, and a search corpus where the environment
 * searches one, in its data folder under the config's dataDir). Without
 * local files it downloads from the Hugging Face hub (HF_ENDPOINT, HF_TOKEN, AGENT_LAB_CACHE honoured).
 * `--corpus FILE` installs the user's own search corpus and builds its index (`data.importCorpus`):
 * alone it touches no split; with --hub or local files it replaces the corpus those came with.
 */
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { UserError } from "../core/base/errors";
import { refuseWriteIntoRun } from "../core/base/runs/run-folder";
import type { DownloadProgress } from "../core/base/data/hub";
import { environmentInfo } from "../core/envs/catalog";
import { environmentByName } from "../core/envs/registry";
import { PREPARE_STEP } from "../core/steps/catalog/catalog";
import { parseStepArgs } from "./step-args";

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(PREPARE_STEP, argv);
  if (!args) return;
  const { values, config, workspaceDir } = args;
  const env = environmentByName(values.env);
  // --dev and --test both give the records val/test come from; each environment's info names its own.
  const held = [...values.dev, ...values.test];
  const local = values.train.length > 0 || held.length > 0;
  const heldFlags = heldFileFlags(env.name);
  const corpusOnly = values.corpus !== undefined && !local && !values.hub;
  if (local && values.hub) throw new UserError(`use either --hub or --train/${heldFlags}, not both`);
  if (local && !(values.train.length && held.length))
    throw new UserError(`--train and ${heldFlags} go together: give both`);
  const outDir =
    values.out ?? env.data.dir(isAbsolute(config.dataDir) ? config.dataDir : join(workspaceDir, config.dataDir));
  refuseWriteIntoRun(outDir, { flag: values.out !== undefined ? "--out" : "dataDir" });
  const importCorpus = env.data.importCorpus;
  if (values.corpus !== undefined && !importCorpus)
    throw new UserError(`--corpus: the ${env.name} environment searches no corpus (its tasks have no search tool)`);
  const lines = corpusOnly
    ? []
    : await env.data.prepare({
        outDir,
        ...(local ? { train: values.train, test: held } : {}),
        log: (line) => console.error(line),
        onProgress: progressPrinter(),
        replaceTestSplit: values["replace-test-split"],
      });
  // After the splits: the user's corpus replaces the one they came with.
  if (values.corpus !== undefined && importCorpus) {
    const made = !existsSync(outDir);
    mkdirSync(outDir, { recursive: true });
    try {
      lines.push(
        ...(await importCorpus({
          file: values.corpus,
          outDir,
          log: (line) => console.error(line),
          onProgress: paragraphPrinter(),
        })),
      );
    } catch (e) {
      // A refused corpus leaves no data folder where there was none (the build's work folder is in it).
      if (made) rmSync(outDir, { recursive: true, force: true });
      throw e;
    }
  }
  for (const line of lines) console.log(line);
}

/** The flag(s) of the records val/test come from, as the environment's info declares its local files ("--dev"). */
function heldFileFlags(name: string): string {
  const roles = environmentInfo(name)?.prepareSources?.local.roles ?? [];
  const held = roles.filter((r) => r.flag !== "train").map((r) => `--${r.flag}`);
  return held.length ? held.join("/") : "--dev/--test";
}

/** Paragraphs indexed so far, on a terminal's rewriting line (a log gets nothing: the build's summary follows). */
function paragraphPrinter(): (paragraphs: number) => void {
  let last = 0;
  return (paragraphs) => {
    if (!process.stderr.isTTY || paragraphs - last < 100_000) return;
    last = paragraphs;
    process.stderr.write(`\r  ${paragraphs.toLocaleString("en-US")} paragraphs…\x1b[K`);
  };
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
