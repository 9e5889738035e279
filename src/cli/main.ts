/**
 * The `agent-lab` command: one thin front per recipe step, over src/core.
 * The extension runs these same commands as child processes (jobs), so anything the UI does can be
 * done from a terminal or CI.
 */
import { UserError } from "../core/errors";
import { TinkerApiError } from "../core/tinker/errors";

interface Command {
  summary: string;
  /** Lazily loaded so `agent-lab score` does not pay for loading the tokenizer or the index. */
  load: () => Promise<{ run(argv: string[]): Promise<void> }>;
}

const COMMANDS: Record<string, Command> = {
  config: { summary: "print the effective settings (defaults < agent-lab.json < flags)", load: () => import("./config-command") },
  prepare: { summary: "download HotpotQA (or read local files) → train/val/test/corpus.jsonl + test hash", load: () => import("./prepare") },
  index: { summary: "build the BM25 search index of <dataDir>/corpus.jsonl into <dataDir>/bm25", load: () => import("./index-command") },
  search: { summary: "try the search index: the top paragraphs for a query, like the recipe's search.py", load: () => import("./search") },
  score: { summary: "mean EM/F1 of a JSONL file with prediction and answers", load: () => import("./score") },
  grade: { summary: "accuracy of model replies in a JSONL file with response and answer: grade --env gsm8k FILE", load: () => import("./grade") },
  pipeline: { summary: "the whole recipe in one command (offline on the local backend by default) → ablation table; rerun continues", load: () => import("./pipeline") },
  demo: { summary: "the main job offline: synthetic data → prepare → index → eval (scripted reader) → show", load: () => import("./demo") },
  eval: { summary: "run the agent on a split into runs/NAME (episodes, summary, manifest); --resume finishes one", load: () => import("./eval") },
  show: { summary: "how a run's episodes ended, searches, and random failures with model vs harness text", load: () => import("./show") },
  spend: { summary: "what the workspace's runs spent, per run and in total (--today)", load: () => import("./spend") },
  "sft-data": { summary: "rejection sampling: keep the shortest correct searched attempt per train question → runs/NAME/sft.jsonl", load: () => import("./sft-data") },
  ablate: { summary: "paired comparison of runs on shared questions: bootstrap CIs, McNemar, Holm, MDE, --json/--report", load: () => import("./ablate") },
  "serve-local": { summary: "run the local Tinker-compatible backend (a stand-in with a tiny CPU model)", load: () => import("./serve-local") },
  "train-sft": { summary: "LoRA SFT on sft.jsonl (loss on the model's own tokens); per-epoch checkpoints registered", load: () => import("./train-sft") },
  "train-grpo": { summary: "online GRPO in the agent harness (fresh sampler per step); checkpoints registered; --resume", load: () => import("./train-grpo") },
  "gen-tasks": { summary: "generate tasks (a model or the scripted generator) or filter --candidates through the Python sandbox and the counted filters → DIR/tasks.jsonl + audit.json", load: () => import("./gen-tasks") },
  experiment: { summary: "experiment run SPEC.json: arms trained and evaluated on the same items → a record with the verdict; experiment validate DIR", load: () => import("./experiment") },
  ckpt: { summary: "print a registered checkpoint's sampler (or state) path: agent-lab ckpt sft-e2 [state]", load: () => import("./ckpt") },
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `usage: agent-lab <command> [options]\n\ncommands:\n${lines.join("\n")}\n\nRun "agent-lab <command> --help" for a command's options.`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    console.log(usage());
    return name ? 0 : 1;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`agent-lab: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  try {
    await (await command.load()).run(rest);
    return 0;
  } catch (e) {
    // The service's own answer (e.g. "no checkpoint at tinker://…") is a message for the user, not a crash.
    if (e instanceof UserError || e instanceof TinkerApiError) {
      console.error(`agent-lab ${name}: ${e.message}`);
      return 1;
    }
    throw e;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    console.error(e);
    process.exitCode = 1;
  },
);
