/**
 * `agent-lab eval --name NAME [--split val|test|train] [--closed-book] [--limit N] [--top-k K]
 *  [--max-searches B] [--max-tokens T] [--concurrency C] [--resume] [--temperature T]
 *  [--prompt FILE] [--backend scripted|tinker|local|transformers] [--workspace DIR]`
 * Step 1.4 of the recipe: run the agent on a split into runs/NAME/ (episodes, summary, manifest).
 * Ctrl-C or SIGTERM stops cleanly (no new episodes, status "interrupted"); `--resume` finishes it.
 */
import { loadConfig } from "../core/config";
import { UserError } from "../core/errors";
import type { Split } from "../core/data/question";
import { BACKENDS } from "../core/eval/backends";
import { evalSplit, TEST_SPLIT_FLAG } from "../core/eval/eval-split";
import { finalLine } from "../core/runs/summary";
import { intFlag, numberFlag, parse } from "./args";
import { localBackendFor } from "./local-backend";

const HELP = `usage: agent-lab eval --name NAME [options]

  --name NAME           run folder under runsDir (default runs/NAME)
  --split S             val (default), train, or test (needs ${TEST_SPLIT_FLAG})
  ${TEST_SPLIT_FLAG} allow opening the test split (recorded in the manifest)
  --closed-book         no search: the floor
  --limit N             first N questions of the split
  --top-k K             paragraphs per search (config topK)
  --max-searches B      search budget (config maxSearches)
  --max-tokens T        tokens per model turn (config maxTokens)
  --concurrency C       episodes in flight (config concurrency)
  --temperature T       sampling temperature (default 0)
  --prompt FILE         system prompt file (config systemPromptFile, else the shipped one)
  --backend B           ${BACKENDS.join(" | ")} (default scripted: the offline heuristic reader)
  --model-path PATH     tinker:// sampler checkpoint to evaluate (tinker, local); alias --checkpoint
  --model ID            tinker: base model (config model); transformers: hub id or folder (config localModel)
  --tokenizer ID        tinker: tokenizer hub id or folder when it differs from the model's
  --local-port P        local: reuse the local backend on this port, else start one (default 8765)
  --index DIR           BM25 index folder (default <dataDir>/bm25)
  --budget USD          stop starting episodes before the run's spend would pass USD (config budgetUsd; 0 = no cap)
  --resume              finish an interrupted run (refuses if its fingerprint changed)
  --workspace DIR       folder holding agent-lab.json, data/ and runs/ (default .)
  --scripted-delay-ms N scripted backend: pause per turn (to watch or test a long run)`;

export async function run(argv: string[]): Promise<void> {
  const { values } = parse("eval", argv, {
    name: { type: "string" },
    split: { type: "string", default: "val" },
    [TEST_SPLIT_FLAG.slice(2)]: { type: "boolean" },
    "closed-book": { type: "boolean" },
    limit: { type: "string" },
    "top-k": { type: "string" },
    "max-searches": { type: "string" },
    "max-tokens": { type: "string" },
    concurrency: { type: "string" },
    temperature: { type: "string" },
    prompt: { type: "string" },
    backend: { type: "string", default: "scripted" },
    checkpoint: { type: "string" },
    "model-path": { type: "string" },
    model: { type: "string" },
    tokenizer: { type: "string" },
    "local-port": { type: "string" },
    index: { type: "string" },
    resume: { type: "boolean" },
    budget: { type: "string" },
    workspace: { type: "string", default: "." },
    "scripted-delay-ms": { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  if (!values.name) throw new UserError("--name is required (the run folder's name)");
  const split = values.split as string;
  if (!["val", "test", "train"].includes(split)) throw new UserError(`--split must be val, test or train, got "${split}"`);
  const overrides = {
    ...(values["top-k"] !== undefined ? { topK: intFlag("top-k", values["top-k"], 1) } : {}),
    ...(values["max-searches"] !== undefined ? { maxSearches: intFlag("max-searches", values["max-searches"], 1) } : {}),
    ...(values["max-tokens"] !== undefined ? { maxTokens: intFlag("max-tokens", values["max-tokens"], 1) } : {}),
    ...(values.concurrency !== undefined ? { concurrency: intFlag("concurrency", values.concurrency, 1) } : {}),
    ...(values.budget !== undefined ? { budgetUsd: numberFlag("budget", values.budget) } : {}),
  };
  const workspaceDir = values.workspace!;
  const config = loadConfig(workspaceDir, overrides);

  // First Ctrl-C / SIGTERM: start nothing new and close the run as "interrupted". Second: leave now.
  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(130);
    console.error(`\n${sig}: stopping; no new episodes start (again to quit at once)`);
    controller.abort(new Error(`stopped by ${sig}`));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const local = values.backend === "local" ? await localBackendFor(workspaceDir, intFlag("local-port", values["local-port"], 0)) : undefined;
  try {
    const result = await evalSplit({
      workspaceDir,
      config,
      name: values.name,
      split: split as Split,
      testFlag: values[TEST_SPLIT_FLAG.slice(2)] ? TEST_SPLIT_FLAG : undefined,
      closedBook: Boolean(values["closed-book"]),
      limit: intFlag("limit", values.limit, 1),
      resume: Boolean(values.resume),
      temperature: numberFlag("temperature", values.temperature) ?? 0,
      promptFile: values.prompt,
      backend: values.backend!,
      checkpoint: values["model-path"] ?? values.checkpoint,
      model: values.model,
      tokenizer: values.tokenizer,
      localBackendUrl: local?.url,
      scriptedDelayMs: intFlag("scripted-delay-ms", values["scripted-delay-ms"], 0),
      indexDir: values.index,
      command: ["agent-lab", "eval", ...argv],
      signal: controller.signal,
      log: (line) => console.log(line),
    });
    if (result.resumed > 0) console.log(`(resumed: ${result.resumed} episodes were already done, ${result.ran} run now)`);
    console.log(`\n${finalLine(values.name, result.summary)}`);
    if (result.summary.status === "interrupted") {
      // A non-zero exit, so scripts and the extension's job runner see the run is not complete.
      if (result.budgetStop) throw new UserError(`${result.budgetStop.message} Kept ${result.summary.n}/${result.summary.planned} episodes in ${result.runDir}; finish with the same command plus --resume.`);
      throw new UserError(`interrupted with ${result.summary.n}/${result.summary.planned} episodes kept in ${result.runDir}; finish it with the same command plus --resume`);
    } else {
      console.log(`run folder: ${result.runDir}`);
    }
  } finally {
    await local?.close();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
