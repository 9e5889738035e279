/**
 * Every step of `agent-lab`, declared once. The CLI (src/cli/main.ts) lists and parses from these;
 * the extension builds argv, pickers and cost confirmations from them; README's command tables are
 * generated from them (`npm run docs:steps`; a test fails when the README drifts).
 */
import { DEFAULT_RESAMPLES } from "../../base/stats/resamples";
import { experimentBackend, experimentStepEstimate } from "../experiments/estimate";
import * as f from "../specs/common-flags";
import { DEFAULT_GEN_PROMPT, PIPELINE_SIZES } from "../specs/common-flags";
import { STAND_IN_TOKENIZER } from "../../base/chat/stand-in-tokenizer";
import { GRADED_ENVIRONMENTS, PIPELINE_ENVIRONMENTS } from "../../envs/catalog";
import * as envHelp from "../specs/environment-help";
import { TASK_ENVS } from "../tasks/task-env";
import { CHAT_EXPORT_FORMATS, DEFAULT_CHAT_EXPORT_FORMAT } from "../sft/chat-formats";
import { DEFAULT_SOLVE_TRIES } from "../tasks/solve-rate";
import { estimateEpisodes, estimateGenTasks, estimateGrpoTraining, estimateSftTraining } from "../specs/estimate";
import { defineStep, type StepSpec } from "../specs/spec";
import { DEFAULT_SEARCH_PORT } from "../../base/config";

export const CONFIG_STEP = defineStep({
  name: "config",
  summary: "print the effective settings (defaults < agent-lab.json < AGENT_LAB_SETTINGS < flags)",
  flags: { workspace: f.workspace },
});

export const PREPARE_STEP = defineStep({
  name: "prepare",
  summary: `download the environment's data (or read local files) → train/val/test splits + the locked test hash (${envHelp.forEnvironments(envHelp.searchingEnvironments(), "+ corpus.jsonl")})`,
  flags: {
    env: f.env,
    hub: {
      type: "boolean",
      help: `download from the Hugging Face hub (the default without local files): ${envHelp.hubDatasets()}`,
    },
    train: {
      type: "list",
      arg: "FILE",
      help: `train records (${envHelp.localFormats()}); repeat for several files, in order`,
    },
    dev: { type: "list", arg: "FILE", help: `${envHelp.localRole("dev") || "dev files"}, same formats` },
    test: { type: "list", arg: "FILE", help: `${envHelp.localRole("test") || "test files"}, same formats` },
    corpus: {
      type: "string",
      arg: "FILE",
      help: 'your own search corpus (corpus.jsonl format: README "Bring your own corpus") → <data>/corpus.jsonl + its index; alone, the splits are left as they are',
    },
    out: { type: "string", arg: "DIR", help: "data folder (default: config dataDir)" },
    "replace-test-split": {
      type: "boolean",
      help: "allow replacing a locked test.jsonl whose content changed (says what changed)",
    },
    workspace: f.workspace,
  },
});

export const INDEX_STEP = defineStep({
  name: "index",
  summary: "build the BM25 search index of <dataDir>/corpus.jsonl into <dataDir>/bm25",
  flags: {
    data: {
      type: "string",
      arg: "DIR",
      help: "data folder with corpus.jsonl; the index goes to DIR/bm25 (default: config dataDir)",
    },
    workspace: f.workspace,
  },
});

export const SEARCH_STEP = defineStep({
  name: "search",
  summary: "try the search index: the top paragraphs for a query, like the recipe's search.py",
  positionals: "QUERY",
  flags: {
    k: { type: "int", arg: "N", min: 1, max: 1000, short: "k", config: "topK", help: "paragraphs to show" },
    data: { type: "string", arg: "DIR", help: "data folder holding the bm25 index (default: config dataDir)" },
    workspace: f.workspace,
  },
});

export const SCORE_STEP = defineStep({
  name: "score",
  summary: "mean EM/F1 of a JSONL file with prediction and answers, or rescore a run folder in place",
  positionals: "FILE|RUN_DIR",
  flags: { "per-line": { type: "string", arg: "OUT", help: "write one JSON line of scores per input line" } },
});

export const EVAL_STEP = defineStep({
  name: "eval",
  summary: "run the agent on a split into runs/NAME (episodes, summary, manifest); --resume finishes one",
  writes: "eval",
  flags: {
    name: f.requiredRunName,
    env: f.env,
    split: {
      type: "string",
      arg: "S",
      choices: f.SPLITS,
      default: "val",
      help: `which split (test needs ${f.TEST_SPLIT_FLAG})`,
    },
    [f.TEST_SPLIT_FLAG_NAME]: {
      type: "boolean",
      help: "allow opening the test split (recorded in the manifest)",
    } as const,
    "closed-book": { type: "boolean", help: "no search: the floor" },
    limit: { type: "int", arg: "N", min: 1, max: f.QUESTIONS_MAX, help: "first N questions of the split" },
    "top-k": f.topK,
    "max-searches": f.maxSearches,
    "max-tokens": f.maxTokens,
    concurrency: f.concurrency,
    temperature: f.temperature(0),
    prompt: f.prompt,
    backend: f.samplingBackend("scripted"),
    "model-path": f.modelPath,
    model: f.model,
    tokenizer: f.tokenizer,
    "local-port": f.localPort,
    index: f.index,
    "search-url": f.searchUrl,
    budget: f.budget,
    resume: f.resume,
    "dry-run": f.dryRun,
    workspace: f.workspace,
    "scripted-delay-ms": f.scriptedDelay,
  },
  spends: (v) => v.backend === "tinker",
  estimate: (v, c) => {
    const questions = v.limit ?? c.splitQuestions ?? 0;
    return estimateEpisodes(
      c.config,
      v.model ?? c.config.model,
      questions,
      `${questions} questions`,
      c.measuredEpisode,
    );
  },
});

export const SFT_DATA_STEP = defineStep({
  name: "sft-data",
  summary:
    "rejection sampling: keep the shortest correct searched attempt per train question → runs/NAME/sft.jsonl; or --from-runs RUN... (no sampling)",
  positionals: "[RUN...]",
  writes: "sft-data",
  flags: {
    name: f.runName("sft-data"),
    env: f.env,
    questions: {
      type: "int",
      arg: "N",
      min: 1,
      max: f.QUESTIONS_MAX,
      default: 1500,
      help: "train questions to try",
    },
    offset: { type: "int", arg: "K", min: 0, max: f.OFFSET_MAX, default: 0, help: "start at train question K" },
    "train-tasks": {
      type: "string",
      arg: "DIR",
      help: envHelp.forEnvironments(
        envHelp.TASK_SET_ENVIRONMENTS.join(", "),
        "the questions are a gen-tasks folder's tasks.jsonl instead of the train split (tasks overlapping val/test are refused; its hash is the lineage's data.train)",
      ),
    },
    tries: { type: "int", arg: "T", min: 1, max: 64, default: 4, help: "episodes per question" },
    temperature: f.temperature(0.8),
    "min-f1": {
      type: "number",
      arg: "F",
      min: 0,
      max: 1,
      default: 0.8,
      help: "keep the shortest attempt that searched with F1 ≥ F",
    },
    backend: f.samplingBackend("tinker"),
    teacher: {
      type: "string",
      arg: "B",
      choices: ["scripted", ...f.SAMPLING_BACKENDS.filter((b) => b !== "scripted")],
      help: "distil from another source instead of the model sampling its own data",
    },
    "model-path": f.modelPath,
    model: f.model,
    tokenizer: f.tokenizer,
    "local-port": f.localPort,
    budget: f.budget,
    concurrency: f.concurrency,
    prompt: f.prompt,
    index: f.index,
    "search-url": f.searchUrl,
    resume: { type: "boolean", help: "continue a stopped run (skips questions already decided)" },
    "from-runs": {
      type: "boolean",
      help: "build the data from the scored episodes of the runs RUN... (eval, GRPO) instead of sampling: no spend",
    },
    "min-reward": { type: "number", arg: "R", help: "--from-runs: keep episodes with reward ≥ R (default: --min-f1)" },
    "best-of": {
      type: "int",
      arg: "K",
      min: 1,
      max: 64,
      default: 1,
      help: "--from-runs: the best K episodes per question by reward (newest first among equals)",
    },
    "per-turn": { type: "boolean", help: "--from-runs: one example per assistant turn, earlier turns as context" },
    "dry-run": f.dryRun,
    workspace: f.workspace,
    "scripted-delay-ms": f.scriptedDelay,
  },
  spends: (v) => !v["from-runs"] && (v.teacher ?? v.backend) === "tinker",
  estimate: (v, c) => {
    const episodes = v["from-runs"] ? 0 : v.questions * v.tries;
    return estimateEpisodes(
      c.config,
      v.model ?? c.config.model,
      episodes,
      v["from-runs"] ? "episodes already paid for" : `${v.questions} questions × ${v.tries} tries`,
      c.measuredEpisode,
    );
  },
});

export const TRAIN_SFT_STEP = defineStep({
  name: "train-sft",
  summary: "LoRA SFT on sft.jsonl (loss on the model's own tokens); per-epoch checkpoints registered as NAME-eN",
  writes: "sft",
  flags: {
    data: {
      type: "string",
      arg: "FILE",
      required: true,
      help: "sft.jsonl from agent-lab sft-data (or its run folder)",
    },
    name: f.runName("sft"),
    epochs: { type: "int", arg: "N", min: 1, max: 1000, default: 3, help: "passes over the data" },
    batch: { type: "int", arg: "B", min: 1, max: 4096, default: 32, help: "examples per step" },
    lr: {
      type: "number",
      arg: "LR",
      min: 0,
      minExclusive: true,
      max: 1,
      default: 2e-4,
      help: "peak learning rate, decays linearly to 0",
    },
    seed: { ...f.seed, help: "shuffle seed" },
    rank: f.rank,
    "init-state": {
      type: "string",
      arg: "S",
      help: "start from a state (registry name or tinker://…/weights/…) instead of the base model",
    },
    tokenizer: {
      ...f.tokenizer,
      help: `${f.tokenizer.help}; the data must have been collected with this same tokenizer`,
    },
    backend: f.trainingBackend,
    "local-port": f.localPort,
    budget: f.budget,
    resume: {
      type: "boolean",
      help: "continue a killed run from its last saved epoch (that epoch's steps are redone)",
    },
    "dry-run": f.dryRun,
    workspace: f.workspace,
  },
  spends: (v) => v.backend === "tinker",
  estimate: (v, c) => estimateSftTraining(c.config, c.config.model, c.sftExamples ?? 0, v.epochs),
});

export const TRAIN_GRPO_STEP = defineStep({
  name: "train-grpo",
  summary: "online GRPO in the agent harness (fresh sampler per step); checkpoints registered as NAME-sN; --resume",
  writes: "grpo",
  flags: {
    env: f.env,
    "init-state": {
      type: "string",
      arg: "S",
      help: "state to start from: registry name (e.g. sft-e2) or tinker://…/weights/…; omit = base model",
    },
    name: f.runName("grpo"),
    steps: { type: "int", arg: "N", min: 1, max: 100_000, default: 30, help: "training steps" },
    questions: { type: "int", arg: "Q", min: 1, max: 4096, default: 32, help: "new train questions per step" },
    group: { type: "int", arg: "G", min: 2, max: 256, default: 8, help: "episodes per question" },
    lr: { type: "number", arg: "LR", min: 0, minExclusive: true, max: 1, default: 4e-5, help: "learning rate" },
    temperature: f.temperature(1),
    offset: {
      type: "int",
      arg: "K",
      min: 0,
      max: f.OFFSET_MAX,
      default: 1500,
      help: "first train question (skip those used for SFT)",
    },
    "train-tasks": {
      type: "string",
      arg: "DIR",
      help: envHelp.forEnvironments(
        envHelp.TASK_SET_ENVIRONMENTS.join(", "),
        "train on a gen-tasks folder's tasks.jsonl instead of the train split (same prompt and grader; tasks overlapping val/test are refused; recorded with its hash)",
      ),
    },
    "save-every": {
      type: "int",
      arg: "N",
      min: 1,
      max: f.SAVE_EVERY_MAX,
      default: 10,
      help: "checkpoint every N steps and at the end",
    },
    seed: { ...f.seed, help: "sampling seed: the same seed redraws the same episodes" },
    rank: f.rank,
    "max-tokens": f.maxTokens,
    "max-searches": f.maxSearches,
    "top-k": f.topK,
    concurrency: f.concurrency,
    prompt: f.prompt,
    index: f.index,
    "search-url": f.searchUrl,
    tokenizer: f.tokenizer,
    backend: f.trainingBackend,
    "local-port": f.localPort,
    budget: f.budget,
    resume: {
      type: "boolean",
      help: "continue from the last saved step (later steps are redone on the same questions)",
    },
    "dry-run": f.dryRun,
    workspace: f.workspace,
  },
  spends: (v) => v.backend === "tinker",
  estimate: (v, c) => estimateGrpoTraining(c.config, c.config.model, v.steps, v.questions, v.group, c.measuredEpisode),
});

/** Where gen-tasks' drafts come from when no --candidates file is given. */
export const GEN_TASKS_GENERATORS = ["scripted", "model"] as const;
export const SOLVE_RATE_MODES = ["policy", "scripted", "off"] as const;

export const GEN_TASKS_STEP = defineStep({
  name: "gen-tasks",
  summary:
    "generate tasks (a model or the scripted generator) or read --candidates, run each solution in the sandbox, filter → DIR/tasks.jsonl + audit.json",
  writes: "gen-tasks",
  flags: {
    out: {
      type: "string",
      arg: "DIR",
      required: true,
      help: "the tasks folder: tasks.jsonl, rejected.jsonl, audit.json, manifest, ledger (a rerun resumes)",
    },
    env: {
      type: "string",
      arg: "ENV",
      choices: TASK_ENVS,
      // The first that trains on a tasks folder (`--train-tasks`): what gen-tasks writes is for it.
      default: envHelp.TASK_SET_ENVIRONMENTS.find((e) => TASK_ENVS.includes(e)) ?? TASK_ENVS[0],
      help: "the environment the tasks train: its answer type and its solve-rate grader",
    },
    candidates: {
      type: "string",
      arg: "FILE",
      help: "JSONL of {problem, solution} written elsewhere: filter these instead of generating",
    },
    generator: {
      type: "string",
      arg: "G",
      choices: GEN_TASKS_GENERATORS,
      help: "scripted: seeded templates, some broken on purpose (offline); model: sample --model/--model-path with --prompt (default: model when --model or --model-path is given)",
    },
    count: { type: "int", arg: "N", min: 1, max: 1_000_000, default: 100, help: "drafts to generate" },
    prompt: {
      type: "string",
      arg: "FILE",
      default: DEFAULT_GEN_PROMPT,
      help: "generation prompt (hashed into the manifest and audit)",
    },
    world: {
      type: "string",
      arg: "DIR",
      help: `${envHelp.searchingEnvironments(TASK_ENVS)} + scripted: the data folder whose corpus.jsonl the questions are written from (default: config dataDir)`,
    },
    "solve-rate": {
      type: "string",
      arg: "MODE",
      choices: SOLVE_RATE_MODES,
      default: "policy",
      help: "policy: the base policy (--backend/--model/--model-path) tries each task k times and k/k, 0/k are dropped; scripted: a seeded stand-in solver; off: skip",
    },
    tries: { type: "int", arg: "K", min: 1, max: 64, default: DEFAULT_SOLVE_TRIES, help: "solve-rate tries per task" },
    temperature: f.temperature(1),
    "max-tokens": {
      type: "int",
      arg: "T",
      unit: "tokens",
      min: 16,
      max: 32768,
      default: 512,
      help: `tokens per draft and per solve-rate try (${envHelp.searchingEnvironments(TASK_ENVS)} tries: config maxTokens per turn)`,
    },
    seed: { ...f.seed, help: "seed of the draws and tries" },
    "eval-items": {
      type: "string",
      arg: "FILE",
      help: 'JSONL of the eval set ({"question": …}): drop candidates with the same normalised text or a shared 13-word run',
    },
    "timeout-ms": {
      type: "int",
      arg: "MS",
      unit: "ms",
      min: 100,
      max: 600_000,
      help: "wall time per solution (default 5000)",
    },
    "memory-mib": {
      type: "int",
      arg: "MIB",
      unit: "MiB",
      min: 64,
      max: 4096,
      help: "memory per solution (default 512; the interpreter is 32-bit)",
    },
    backend: {
      type: "string",
      arg: "B",
      choices: f.TRAINING_BACKENDS,
      default: "tinker",
      help: "where --model/--model-path sample (local = the free stand-in backend)",
    },
    model: f.model,
    "model-path": f.modelPath,
    "local-port": f.localPort,
    budget: f.budget,
    "dry-run": f.dryRun,
    workspace: f.workspace,
  },
  notes: `Filters, in order: eval-overlap, the sandbox's (error, timeout, memory, blocked:*, crash), ${envHelp.answerFilters()}, duplicate, solve-rate:all-solved, solve-rate:none-solved.`,
  spends: (v) =>
    v.backend === "tinker" &&
    ((v.candidates === undefined && v.generator !== "scripted") || v["solve-rate"] === "policy"),
  estimate: (v, c) =>
    estimateGenTasks(
      c.config,
      v.model ?? c.config.model,
      v.candidates !== undefined ? (c.candidateCount ?? 0) : v.count,
      v.tries,
      v["max-tokens"],
      v.candidates === undefined && v.generator !== "scripted",
      v["solve-rate"] === "policy",
    ),
});

export const EXPERIMENT_SUBCOMMANDS = ["run", "validate"] as const;

export const EXPERIMENT_STEP = defineStep({
  name: "experiment",
  summary:
    "experiment run SPEC.json: every arm trained and evaluated on the same items → runs/NAME/experiment.json with CIs, recovery, the verdict and provenance; experiment validate DIR: the reviewer's checks",
  positionals: "run SPEC.json | validate DIR",
  writes: "experiment",
  flags: {
    dir: {
      type: "string",
      arg: "DIR",
      help: "run: the experiment's workspace (agent-lab.json, data/, runs/); default experiments/<spec name>",
    },
    "dry-run": { type: "boolean", help: "run: print the phases and the estimated cost; run nothing" },
    yes: { type: "boolean", help: "run, tinker: spend without refusing (the estimate is printed first)" },
    "local-port": {
      type: "int",
      arg: "P",
      min: 0,
      max: 65535,
      help: "run, local: reuse a running agent-lab serve-local on this port (default: start one)",
    },
    rehearse: {
      type: "boolean",
      help: "run, tinker spec: every phase at tiny sizes through the Tinker client with the stand-in tokenizer offline:qwen3, against TINKER_BASE_URL (agent-lab serve-local: free), as NAME-rehearsal; scripted tasks; its numbers mean nothing",
    },
    train: {
      type: "list",
      arg: "FILE",
      help: `run, ${envHelp.environmentsWithRoles(["train", "test"])}: train records instead of the hub, as agent-lab prepare reads them`,
    },
    test: {
      type: "list",
      arg: "FILE",
      help: `run, ${envHelp.environmentsWithRoles(["train", "test"])}: test records, with --train`,
    },
    json: { type: "boolean", help: "validate: print the checks as JSON" },
  },
  notes:
    "run: a rerun of the same spec in the same folder continues (finished phases are skipped, a stopped one resumes).\n" +
    "validate: DIR is the record folder (runs/<name>, holding experiment.json) or the experiment's workspace; exit code 1 when a check fails.",
  // A spec on the local backend, a dry run and validate spend nothing; unknown positionals (help, docs): it can.
  spends: (v, positionals, workspaceDir) =>
    positionals === undefined ||
    (positionals[0] === "run" && !v["dry-run"] && experimentBackend(positionals[1], workspaceDir) !== "local"),
  estimate: (v, c) =>
    experimentStepEstimate(c.positionals?.[1] ?? "", { rehearse: v.rehearse, workspaceDir: c.workspaceDir }),
});

export const ABLATE_STEP = defineStep({
  name: "ablate",
  summary: "paired comparison of runs on shared questions: bootstrap CIs, McNemar, Holm, MDE, --json/--report",
  positionals: "RUN...",
  flags: {
    resamples: {
      type: "int",
      arg: "N",
      min: 100,
      max: 1_000_000,
      default: DEFAULT_RESAMPLES,
      help: "bootstrap resamples (also the permutation test's draws)",
    },
    seed: { ...f.seed, help: "seed of the resampling" },
    expect: {
      type: "list",
      arg: "FIELD",
      help: "a fingerprint field expected to differ, e.g. policy.checkpoint (a prefix covers its sub-fields)",
    },
    json: { type: "string", arg: "OUT", help: "write the full comparison (per-question flips included) as JSON" },
    report: {
      type: "string",
      arg: "OUT.md",
      help: "write the recipe's markdown report table, and the failure labels' paired table",
    },
    label: { type: "string", arg: "A,B,…", help: "stage names for the report's rows (default: run folder names)" },
    workspace: f.workspace,
  },
  notes:
    "The first RUN is the baseline; every other run gets a paired Δ against it. Intervals are 95% percentile\n" +
    "bootstrap; Δ F1 is tested by a paired sign-flip permutation test, Δ EM by McNemar's exact test,\n" +
    "Holm-adjusted across the table.",
});

export const EXPORT_CHAT_STEP = defineStep({
  name: "export-chat",
  summary:
    "episodes or SFT data as chat JSONL for other trainers: OpenAI-style (assistant weight 1/0, tools) or tinker-cookbook's (trainable)",
  positionals: "RUN_OR_SFT_DATA",
  flags: {
    out: { type: "string", arg: "FILE", required: true, help: "the chat JSONL to write" },
    format: {
      type: "string",
      arg: "F",
      choices: CHAT_EXPORT_FORMATS,
      default: DEFAULT_CHAT_EXPORT_FORMAT,
      help: "openai: assistant weight 1/0 (OpenAI fine-tuning, TRL); cookbook: trainable true/false on every message (tinker-cookbook)",
    },
    workspace: f.workspace,
  },
  notes:
    "Text is decoded from the recorded token ids with the run's tokenizer; Agent Lab itself trains on the ids, not on this text.\n" +
    "--format cookbook writes tinker-cookbook's conversation files (FromConversationFileBuilder; train with train_on_what=customized).",
});

export const SHOW_STEP = defineStep({
  name: "show",
  summary:
    "how a run's episodes ended, searches, the drift check's counts (the trace viewer's), and random failures with model vs harness text",
  positionals: "RUN",
  flags: {
    n: { type: "int", arg: "N", min: 0, max: 10_000, default: 3, help: "failures to print" },
    seed: { ...f.seed, help: "which failures" },
    failures: {
      type: "boolean",
      help: "the failed episodes by label (the environment's failure rules): count, share of all episodes, three example ids, sub-labels",
    },
    json: { type: "boolean", help: "with --failures: print the label table as JSON" },
    workspace: f.workspace,
  },
  notes:
    "RUN is a run folder, or a run name under the config's runsDir.\n" +
    "Colours when stdout is a terminal or FORCE_COLOR is set (NO_COLOR turns them off); otherwise harness-inserted text is fenced in ⟦…⟧.",
});

export const CKPT_STEP = defineStep({
  name: "ckpt",
  summary:
    "a registered checkpoint's sampler (or state) path, and its lifecycle on the service: agent-lab ckpt sft-e2 [state], agent-lab ckpt ttl sft-e2 30",
  positionals: "NAME [sampler|state] | info|ttl|publish|unpublish|download|delete NAME|PATH [...] | status",
  flags: {
    list: { type: "boolean", help: "print every name with its kind, step and parent" },
    remote: {
      type: "boolean",
      help: "list the account's checkpoints on the service that the workspace has not registered",
    },
    backend: {
      type: "string",
      arg: "B",
      choices: f.TRAINING_BACKENDS,
      help: "the service holding the checkpoints (default: local when the workspace's local backend has the run, else tinker)",
    },
    "local-port": f.localPort,
    out: { type: "string", arg: "DIR", help: "download: the folder to extract into (default .)" },
    force: {
      type: "boolean",
      help: "download: replace an existing folder; delete: even while a run in the workspace needs the checkpoint",
    },
    yes: { type: "boolean", help: "delete: confirm (the checkpoint's files on the service are lost for good)" },
    json: { type: "boolean", help: "status, --remote: print the service's records as JSON" },
    workspace: f.workspace,
  },
  notes:
    "NAME is a checkpoint name from <runsDir>/checkpoints.jsonl (e.g. sft-e2, grpo-s30); when a name was registered\n" +
    "twice, the later entry wins. sampler (the default) prints the path for eval --model-path; state prints the\n" +
    "path for train-grpo --init-state or train-sft --init-state.\n" +
    "Lifecycle verbs act on both of a NAME's checkpoints (state and sampler), or on one tinker:// PATH:\n" +
    "  info NAME|PATH               size, created, expiry and public flag as the service reports them\n" +
    "  ttl NAME|PATH DAYS|none      expire DAYS from now (above 0), or never\n" +
    "  publish|unpublish NAME|PATH  make public, or private again\n" +
    "  download NAME|PATH [sampler|state] [--out DIR] [--force]   download the archive and extract it\n" +
    "  delete NAME|PATH --yes [--force]   delete for good; refused while a run in the workspace needs it\n" +
    "  status [--json]              every registered checkpoint's record on its service\n" +
    "  --remote [--json]            the account's checkpoints that no registered name points at",
});

export const SPEND_STEP = defineStep({
  name: "spend",
  summary:
    "what the workspace's runs spent, per run and in total (--today); --tinker compares with the service's billing",
  flags: {
    today: { type: "boolean", help: "only what was spent since local midnight" },
    since: { type: "string", arg: "TIME", help: "only what was spent at or after TIME (ISO date or date-time)" },
    json: { type: "boolean", help: "print the numbers as JSON" },
    tinker: {
      type: "boolean",
      help: "compare the ledger's tokens with the service's billing usage for the same hours and name any difference",
    },
    backend: {
      type: "string",
      arg: "B",
      choices: f.TRAINING_BACKENDS,
      help: "--tinker: the service to ask (default: local when the workspace has a local backend folder, else tinker)",
    },
    "local-port": f.localPort,
    workspace: f.workspace,
  },
});

export const SERVE_LOCAL_STEP = defineStep({
  name: "serve-local",
  summary: "run the local Tinker-compatible backend (a stand-in with a tiny CPU model)",
  flags: {
    port: {
      type: "int",
      arg: "P",
      min: 0,
      max: 65535,
      default: f.DEFAULT_LOCAL_PORT,
      help: "port on 127.0.0.1 (0 picks a free one)",
    },
    dir: { type: "string", arg: "DIR", help: "folder for checkpoints and run records (default .cache/local-backend)" },
    seed: { ...f.seed, help: "model seed" },
    faults: {
      type: "string",
      arg: "SPEC",
      help: "fault injection, e.g. latency=50,429=0.2,5xx=0.05,drop=0.05,slow=200,seed=3",
    },
  },
  notes:
    "--faults: latency and slow in ms; 429 = its rate on asample; 5xx and drop = their rates on every other endpoint.",
});

export const SERVE_SEARCH_STEP = defineStep({
  name: "serve-search",
  summary: "serve a search index over HTTP, so many eval/GRPO/sft-data jobs search one index (searchUrl, --search-url)",
  flags: {
    index: f.index,
    port: {
      type: "int",
      arg: "P",
      min: 0,
      max: 65535,
      default: DEFAULT_SEARCH_PORT,
      help: "port to listen on (0 picks a free one)",
    },
    host: {
      type: "string",
      arg: "HOST",
      default: "127.0.0.1",
      help: "address to listen on (0.0.0.0 lets other machines search it: the server has no authentication)",
    },
    workspace: f.workspace,
  },
  notes:
    "Prints the URL it listens on; give it to jobs as the searchUrl setting or --search-url. GET /describe, POST /search\n" +
    '{"query", "k"} → {"hits": [{id, title, text, score}]} (src/core/base/search/search-wire.ts). Stops on Ctrl+C.',
});

export const PIPELINE_STEP = defineStep({
  name: "pipeline",
  summary:
    "the whole recipe in one command (offline on the local backend by default) → ablation table; rerun continues",
  writes: "pipeline",
  flags: {
    dir: {
      type: "string",
      arg: "DIR",
      default: "agent-lab-pipeline",
      help: "the folder it works in, laid out as a workspace (data/, runs/, agent-lab.json); . = here",
    },
    // Not the workspace config's env: the folders the pipeline makes name their world there, and its
    // own environment is the choice; the first (the recipe's) by default.
    env: {
      type: "string",
      arg: "ENV",
      choices: PIPELINE_ENVIRONMENTS,
      default: PIPELINE_ENVIRONMENTS[0],
      help: `the environment: local runs on its invented offline world, recorded under the world's own name (${PIPELINE_ENVIRONMENTS.join(", ")}); tinker runs the first (the recipe)`,
    },
    backend: {
      type: "string",
      arg: "B",
      choices: ["local", "tinker"],
      default: "local",
      help: `local: an invented world on the local stand-in backend, offline and free; tinker: ${envHelp.recipeEnvironment().dataset} with Qwen/Qwen3.5-4B at the recipe's sizes`,
    },
    size: {
      type: "string",
      arg: "S",
      choices: PIPELINE_SIZES,
      default: "full",
      help: "full: the backend's sizes; smoke: every stage at tiny sizes in about a minute (offline only)",
    },
    rehearse: {
      type: "boolean",
      help: `tinker: every stage of the paid recipe through the Tinker client at tiny sizes, with the stand-in tokenizer ${STAND_IN_TOKENIZER}, against TINKER_BASE_URL (agent-lab serve-local: free; the real service: cents); its numbers mean nothing`,
    },
    train: {
      type: "list",
      arg: "FILE",
      help: `tinker: ${envHelp.recipeRole("train")}: ${envHelp.recipeFormats()} (repeat for several files, in order), instead of the hub (as agent-lab prepare reads them)`,
    },
    dev: { type: "list", arg: "FILE", help: `tinker: ${envHelp.recipeRole("dev")}, same formats` },
    "dry-run": { type: "boolean", help: "print the stages, their sizes, status and estimated cost; run nothing" },
    yes: { type: "boolean", help: "tinker: do not ask before spending" },
    "local-port": {
      type: "int",
      arg: "P",
      min: 0,
      max: 65535,
      help: "local: reuse a running agent-lab serve-local on this port (default: start one)",
    },
    resamples: {
      type: "int",
      arg: "N",
      min: 100,
      max: 1_000_000,
      default: DEFAULT_RESAMPLES,
      help: "bootstrap resamples of the comparison",
    },
  },
  notes:
    "Runs the whole recipe and prints the ablation table (closed-book, base, SFT, GRPO on val, paired 95% CIs against\n" +
    "base) and GRPO's train-reward trend; writes DIR/report.md and DIR/ablation.json.\n" +
    envHelp
      .offlineWorldNotes()
      .map((line) => `${line}\n`)
      .join("") +
    "tinker needs TINKER_API_KEY and asks before spending (the local backend is a tiny CPU model: real results come\n" +
    "from Tinker).\n" +
    "Rehearse before you pay: TINKER_BASE_URL=<agent-lab serve-local's URL> agent-lab pipeline --backend tinker --rehearse --yes\n" +
    "runs the paid path end to end for free (a server that says it is the local stand-in is priced at $0).\n" +
    "Every stage is skipped when its outputs are complete and resumed when partial: rerun to continue.",
  spends: (v) => v.backend === "tinker",
});

export const DEMO_STEP = defineStep({
  name: "demo",
  summary: "the main job offline in a minute: synthetic data → prepare → index → eval (scripted reader) → show",
  writes: "demo",
  flags: {
    dir: {
      type: "string",
      arg: "DIR",
      default: "agent-lab-demo",
      help: "folder to write; rerunning in a folder an earlier demo made continues it (finished stages are skipped; DIR/progress.json says where it is, DIR/demo.json what ran)",
    },
    concurrency: { type: "int", arg: "C", min: 1, max: 1024, default: 8, help: "episodes in flight" },
  },
});

export const GRADE_STEP = defineStep({
  name: "grade",
  summary: `accuracy of model replies in a JSONL file with response and answer: grade --env ${GRADED_ENVIRONMENTS.join("|") || "ENV"} FILE`,
  positionals: "FILE",
  flags: {
    env: {
      type: "string",
      arg: "ENV",
      choices: GRADED_ENVIRONMENTS,
      required: true,
      help: "the environment whose grader to use",
    },
    "per-line": {
      type: "string",
      arg: "OUT",
      help: "write one JSON line per record: line, correct, extracted answer, reference",
    },
  },
});

/** Every step, in the order `agent-lab` lists them. */
export const PLAYGROUND_STEP = defineStep({
  name: "playground",
  summary:
    "chat with the base model or a checkpoint in an environment, a turn at a time (JSON lines on stdin/stdout; the extension's Chat with Model panel)",
  flags: {
    env: f.env,
    prompt: f.prompt,
    backend: f.samplingBackend("local"),
    "model-path": f.modelPath,
    model: f.model,
    tokenizer: f.tokenizer,
    "local-port": f.localPort,
    workspace: f.workspace,
  },
  // No up-front estimate: each turn is priced as it runs, and the panel shows the next turn's most.
  notes:
    "Reads one request per line ({op: items|start|turn|cancel|save|close}, src/core/views/playground/protocol.ts) and\n" +
    "answers each with a line starting 'agent-lab-playground '. Each turn is sampled with its own temperature and max\n" +
    "tokens; save writes the finished episode as a one-episode eval run under the config's runsDir.",
});

export const STEPS: readonly StepSpec[] = [
  CONFIG_STEP,
  PREPARE_STEP,
  INDEX_STEP,
  SEARCH_STEP,
  SCORE_STEP,
  PIPELINE_STEP,
  DEMO_STEP,
  EVAL_STEP,
  SHOW_STEP,
  SPEND_STEP,
  SFT_DATA_STEP,
  EXPORT_CHAT_STEP,
  ABLATE_STEP,
  SERVE_LOCAL_STEP,
  SERVE_SEARCH_STEP,
  TRAIN_SFT_STEP,
  TRAIN_GRPO_STEP,
  GEN_TASKS_STEP,
  EXPERIMENT_STEP,
  CKPT_STEP,
  GRADE_STEP,
  PLAYGROUND_STEP,
] as unknown as readonly StepSpec[];

export function findStep(name: string): StepSpec | undefined {
  return STEPS.find((s) => s.name === name);
}
