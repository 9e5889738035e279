/**
 * `agent-lab sft-data [--questions N] [--offset K] [--tries T] [--temperature X] [--min-f1 F]
 *  [--backend B | --teacher B] [--model-path PATH] [--name NAME] [--resume] [--budget USD]`
 * Step 3a of the recipe: rejection sampling over train questions into runs/NAME/sft.jsonl, with a
 * lineage manifest and the cost in the run's ledger. Ctrl-C or SIGTERM stops cleanly (no new
 * questions start, what is written stays); `--resume` continues.
 */
import { loadConfig } from "../core/config";
import { UserError } from "../core/errors";
import { BACKENDS } from "../core/eval/backends";
import { collectSftData, sftAdvice } from "../core/sft/collect-sft";
import { intFlag, numberFlag, parse } from "./args";
import { localBackendFor } from "./local-backend";

const HELP = `usage: agent-lab sft-data [options]

  --questions N        train questions to try (default 1500)
  --offset K           start at train question K (default 0)
  --tries T            episodes per question (default 4)
  --temperature X      sampling temperature (default 0.8)
  --min-f1 F           keep the shortest attempt that searched with F1 >= F (default 0.8)
  --backend B          the model samples its own data: ${BACKENDS.join(" | ")} (default tinker)
  --teacher B          distil from another source instead: scripted (the heuristic reader) or a backend
  --model-path PATH    tinker:// sampler checkpoint to sample from (tinker, local)
  --model ID           tinker: base model (config model); transformers: hub id or folder
  --tokenizer ID       tinker: tokenizer when it differs from the model's
  --local-port P       local: reuse the local backend on this port, else start one (default 8765)
  --name NAME          run folder under runsDir (default sft-data)
  --env ENV            task environment (config env): hotpotqa, gsm8k
  --resume             continue a stopped run (skips questions already decided)
  --budget USD         stop before the run's spend would pass USD (config budgetUsd; 0 = no cap)
  --concurrency C      episodes in flight (config concurrency)
  --prompt FILE        system prompt file (config systemPromptFile, else the shipped one)
  --index DIR          BM25 index folder (default <dataDir>/bm25)
  --workspace DIR      folder holding agent-lab.json, data/ and runs/ (default .)
  --scripted-delay-ms N scripted source: pause per turn (to watch or test a long run)`;

export async function run(argv: string[]): Promise<void> {
  if (argv.includes("--from-runs")) return (await import("./sft-from-runs")).run(argv);
  const { values } = parse("sft-data", argv, {
    questions: { type: "string" },
    offset: { type: "string" },
    tries: { type: "string" },
    temperature: { type: "string" },
    "min-f1": { type: "string" },
    backend: { type: "string" },
    teacher: { type: "string" },
    "model-path": { type: "string" },
    model: { type: "string" },
    tokenizer: { type: "string" },
    "local-port": { type: "string" },
    name: { type: "string", default: "sft-data" },
    env: { type: "string" },
    resume: { type: "boolean" },
    budget: { type: "string" },
    concurrency: { type: "string" },
    prompt: { type: "string" },
    index: { type: "string" },
    workspace: { type: "string", default: "." },
    "scripted-delay-ms": { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) return void console.log(HELP);
  if (values.backend && values.teacher) throw new UserError("give --backend (the model samples its own data) or --teacher (distil from another source), not both");
  const backend = values.teacher ?? values.backend ?? "tinker";
  const workspaceDir = values.workspace!;
  const config = loadConfig(workspaceDir, {
    ...(values.budget !== undefined ? { budgetUsd: numberFlag("budget", values.budget) } : {}),
    ...(values.concurrency !== undefined ? { concurrency: intFlag("concurrency", values.concurrency, 1) } : {}),
  });

  // First Ctrl-C / SIGTERM: start no new question and close the run as "interrupted". Second: leave now.
  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(130);
    console.error(`\n${sig}: stopping; no new questions start (again to quit at once)`);
    controller.abort(new Error(`stopped by ${sig}`));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const local = backend === "local" ? await localBackendFor(workspaceDir, intFlag("local-port", values["local-port"], 0)) : undefined;
  try {
    const result = await collectSftData({
      env: values.env,
      workspaceDir,
      config,
      name: values.name!,
      questions: intFlag("questions", values.questions, 1) ?? 1500,
      offset: intFlag("offset", values.offset, 0) ?? 0,
      tries: intFlag("tries", values.tries, 1) ?? 4,
      temperature: numberFlag("temperature", values.temperature) ?? 0.8,
      minF1: numberFlag("min-f1", values["min-f1"]) ?? 0.8,
      role: values.teacher ? "teacher" : "self",
      backend,
      checkpoint: values["model-path"],
      model: values.model,
      tokenizer: values.tokenizer,
      localBackendUrl: local?.url,
      scriptedDelayMs: intFlag("scripted-delay-ms", values["scripted-delay-ms"], 0),
      promptFile: values.prompt,
      indexDir: values.index,
      resume: Boolean(values.resume),
      command: ["agent-lab", "sft-data", ...argv],
      signal: controller.signal,
      log: (line) => console.log(line),
    });
    console.log(`\n${result.finalLine}`);
    const advice = sftAdvice(result.manifest);
    if (advice) console.log(`note: ${advice}`);
    if (result.manifest.status === "interrupted") {
      const why = result.budgetStop ? result.budgetStop.message : "interrupted.";
      throw new UserError(`${why} Kept ${result.manifest.counts.kept} traces from ${result.manifest.counts.questions} questions in ${result.runDir}; continue with the same command plus --resume`);
    }
    console.log(`run folder: ${result.runDir} (sft.jsonl sha256 ${result.manifest.output.sha256.slice(0, 16)})`);
  } finally {
    await local?.close();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
