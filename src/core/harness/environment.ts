/**
 * An environment is the task, in one folder: its data (how records become train/val/test splits,
 * the locked test hash), its prompt, how a model reply is read (a final answer, a tool call whose
 * observation the harness inserts as the next user turn, or nothing), its reward and metrics, the
 * fields its episode records carry beyond the common ones, and how a trace is annotated.
 *
 * The harness (src/core/harness/episode.ts) runs every environment through one loop: it samples,
 * records every token with its sampled flag and logprob, closes turns, stitches observations, and
 * handles the token limit; the environment only says what a reply means. Eval, sft-data, GRPO,
 * ablate and show read nothing environment-specific beyond what is declared here.
 *
 * Record fields every environment fills (so the views need no per-environment code):
 *  - `reward`: what RL optimises;
 *  - `metrics`: one value per metric its info declares (base/runs/metrics.ts): exactly one is
 *    primary (views sort and colour by it, e.g. a token-overlap score), at least one is binary (fully
 *    right or not, what McNemar pairs, e.g. exact match; a single 0/1 verdict is both);
 *  - `prediction`: the final answer as the environment extracted it; `searches`: the tool calls' arguments.
 */
import type { ChatTokenizer } from "../base/chat";
import type { AgentLabConfig } from "../base/config";
import type { DownloadProgress } from "../base/data/hub";
import type { Split } from "../base/data/question";
import type { StopReason } from "./policy";
import type { Searcher } from "../base/search/searcher";
import type { EnvironmentId } from "../base/runs/environment-id";
import type { EndReason } from "../base/runs/run-files";
import type { MetricDeclaration } from "../base/runs/metrics";

export type { EnvironmentId, MetricDeclaration };

/** How an episode ended (the record format's vocabulary). Environments without tools use "answer", "no_action" and "length". */
export type { EndReason };

/** What every environment's items have: an id, the question as the views show it, the gold answers. */
export interface EnvItem {
  id: string;
  question: string;
  answers: string[];
}

/** A tool the model may call (OpenAI-style declaration, for chat exports). */
export interface ToolDeclaration {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** One model turn as the harness recorded it; the environment fills `action` and its own fields. */
export interface EpisodeTurn {
  /** Where the model's reply starts in `Episode.tokens`. */
  start: number;
  /** After the reply's end-of-turn token (sampled, or inserted when the sampler left it out). */
  replyEnd: number;
  /** After the harness's inserted user turn; equals replyEnd on the last turn. */
  end: number;
  /** The reply as text, special tokens removed (what was parsed). */
  reply: string;
  stopReason: StopReason;
  /** What the environment read in the reply ("answer", "search", "none", …). */
  action: string;
  /** The tool call's argument, when the action was a tool call. */
  query?: string;
  /** What the tool returned (a search's paragraphs, text left out: it is in the tokens). */
  hits?: { id: number; title: string; score: number }[];
}

/** What the harness does after a reply: end the episode, or insert an observation and sample again. */
export type TurnOutcome = { end: EndReason } | { observation: string };

/** The environment's verdict on a finished episode. */
export interface EpisodeScore {
  /** The final answer as extracted ("" when there is none). */
  prediction: string;
  /** One value per declared metric (its info's `metrics`), by name. */
  metrics: Record<string, number>;
  reward: number;
  /** Environment fields appended to the episode record, after the common ones (absent: none). */
  fields?: Record<string, unknown>;
}

/** One episode of an environment: its first prompt, then one call per reply, then its score. */
export interface EnvEpisode {
  /** Chat-template tokens of the first prompt, generation prompt included. */
  readonly prompt: number[];
  /** Tool-call arguments so far, in order (the record's `searches`). */
  readonly toolCalls: string[];
  /**
   * Reads one reply (a cut-off one too: `turn.stopReason` is "length"); fills `turn.action` and its fields.
   * A promise when the reply needs a tool that answers later (a search over HTTP); the loop awaits it.
   */
  onReply(turn: EpisodeTurn): TurnOutcome | Promise<TurnOutcome>;
  score(end: EndReason): EpisodeScore;
}

/** Everything an episode may depend on besides the item: settings, the system prompt, the tokenizer. */
export interface EpisodeSetup {
  tokenizer: ChatTokenizer;
  /** The system prompt text; undefined when the environment's prompt has none (its default may have none). */
  systemPrompt: string | undefined;
}

/** The settings a run of an environment is made with (from the config and flags). */
export interface EnvRunOptions {
  workspaceDir: string;
  config: AgentLabConfig;
  /** The environment's data folder (see `EnvData.dir`). */
  dataDir: string;
  /**
   * Eval's closed-book floor (no tools); undefined for steps that have no such mode (sft-data,
   * GRPO), whose manifests then carry no closed-book field. Environments without tools ignore it.
   */
  closedBook?: boolean;
  /** An index folder other than the environment's default (`--index`, for an environment that searches one). */
  indexDir?: string;
  /** A ready searcher instead of opening the environment's index (tests); null = none. */
  searcher?: Searcher | null;
}

/** One run's environment: its resources opened, its fingerprint settled. */
export interface EnvRun<I extends EnvItem = EnvItem> {
  /**
   * Manifest fields (beyond split, prompt, policy, sampling, tokenizer) that decide the numbers:
   * e.g. a search agent's `search` block, a grader's options. Compared on resume and by compare/ablate.
   */
  readonly fingerprint: Record<string, unknown>;
  /**
   * The chat template's `enable_thinking` this run's prompts are rendered with, recorded in every
   * manifest as `thinking` (base/runs/manifest-thinking.ts) and used by the drift check. Absent:
   * off, the only setting the harness's stitched turns have (chat/turns.ts).
   */
  readonly thinking?: boolean;
  start(item: I, setup: EpisodeSetup): EnvEpisode;
}

export interface PrepareOptions {
  /** The environment's data folder (written). */
  outDir: string;
  /**
   * Local files instead of the hub (the environment says which formats it reads): train records,
   * and the records val/test come from (a dev set's files, or an official test set's: the environment's
   * `prepareSources` names the flag).
   */
  train?: string[];
  test?: string[];
  log: (line: string) => void;
  /** Download progress, when the records come from the hub. */
  onProgress?: (p: DownloadProgress) => void;
  /** Allow replacing a locked test split whose content changed (the refusal names the flag). */
  replaceTestSplit?: boolean;
}

/** A user's own search corpus to install (`agent-lab prepare --corpus FILE`). */
export interface CorpusImportOptions {
  /** The user's file, in corpus.jsonl's format (one {"id"?, "title", "text"} object per line). */
  file: string;
  /** The environment's data folder (written). */
  outDir: string;
  log: (line: string) => void;
  /** Paragraphs read so far while the index is built. */
  onProgress?: (paragraphs: number) => void;
}

/** What a run's manifest records of the gen-tasks folder it trained on (`--train-tasks DIR`). */
export interface TrainTasksRecord {
  tasks_dir: string;
  file: string;
  sha256: string;
  questions: number;
}

export interface EnvData<I extends EnvItem = EnvItem> {
  /** Where the environment's splits live, from the config's dataDir (dataDir itself for the first environment). */
  dir(dataDir: string): string;
  /** A split's items in file order; the test split is checked against its locked hash first. */
  load(dir: string, split: Split): I[];
  /** Writes the splits (and the locked test hash) from the hub or local files; returns lines to print. */
  prepare(o: PrepareOptions): Promise<string[]>;
  /**
   * Installs a user's own search corpus in the data folder and builds its index, refusing a bad line
   * before anything there changes; returns lines to print (absent: the environment searches none).
   */
  importCorpus?(o: CorpusImportOptions): Promise<string[]>;
  /**
   * A gen-tasks folder as the training split, prompted and graded as the real train split, after
   * checking no task overlaps the val or test items in `dir` (absent: the environment has none).
   */
  loadTrainTasks?(tasksDir: string, dir: string): { items: I[]; record: TrainTasksRecord };
}

/** A note and the marked spans the trace viewer and `show` put beside an episode. */
export interface TraceAnnotations {
  notes: { label: string; value: string }[];
  /** Character spans in a turn's reply text (`turn` indexes `turns`). */
  spans: { turn: number; start: number; end: number; label: string }[];
}

/** Grades a model's whole reply against a reference answer, outside an episode (`agent-lab grade`). */
export interface ReplyGrader {
  /** Why `answer` cannot be graded against, or undefined when it can. */
  badAnswer(answer: string): string | undefined;
  /** `reason`: why a wrong verdict was reached without grading the reply in full (absent when it was). */
  grade(
    response: string,
    answer: string,
  ): { correct: boolean; extracted: string | undefined; reference: string; reason?: string };
}

export interface Environment<I extends EnvItem = EnvItem> extends EnvironmentId {
  /** One line, for `--help` and error messages. */
  readonly summary: string;
  /** What its episodes are scored on (its info's declarations). */
  readonly metrics: readonly MetricDeclaration[];
  /** The scorer's identity in manifests. */
  readonly scorerVersion: string;
  /**
   * The functions that compute its metrics, in a fixed order: an experiment's evaluator identity
   * hashes their source text (steps/experiments/evaluator.ts), so a reviewer sees when the grading
   * code changed under the same scorerVersion. Absent: the identity names the scorer version only.
   */
  readonly scoringFunctions?: readonly ((...args: never[]) => unknown)[];
  /** Tools the model may call; empty for a single-turn environment. */
  readonly tools: readonly ToolDeclaration[];
  /** What closing lines call its tool calls per question ("searches"; absent: "tool calls"). */
  readonly toolCallsLabel?: string;
  /** SFT acceptance: keep only episodes that called a tool (a search agent's "that searched"). */
  readonly sftRequiresToolUse: boolean;
  readonly data: EnvData<I>;
  /** The shipped system prompt file, or undefined when the prompt has no system message by default. */
  defaultPromptFile(o: { closedBook: boolean }): string | undefined;
  open(o: EnvRunOptions): Promise<EnvRun<I>>;
  /** Extra annotations for a recorded episode (absent: none). */
  annotate?(record: Record<string, unknown>): TraceAnnotations;
  /** Its reply grader, when its info says `gradesReplies`. */
  readonly replyGrader?: ReplyGrader;
  /**
   * A recorded episode scored again from what its record holds, by this build's scorer (after the
   * scorer changed, or on a run copied from elsewhere): what `agent-lab score RUN_DIR` writes back.
   * `manifest` is the run's (the settings its reward was computed with). Absent: its runs cannot be rescored.
   */
  rescore?(
    record: Readonly<Record<string, unknown>>,
    manifest: Readonly<Record<string, unknown>> | undefined,
  ): Rescored;
  /**
   * Its metrics of a bare prediction against gold answers, for `agent-lab score FILE` (a JSONL file
   * of predictions); absent: predictions alone are not enough to score its episodes.
   */
  scorePrediction?(prediction: string, answers: readonly string[]): Record<string, number>;
}

/** A recorded episode's new scores: every declared metric, the reward, and the record fields that follow from them. */
export interface Rescored {
  metrics: Record<string, number>;
  reward: number;
  /** Record fields replaced (the environment's own, e.g. a verdict flag); absent: none. */
  fields?: Record<string, unknown>;
}

/**
 * Where `sft-data` can take an environment's examples from: the model's own samples (rejection
 * sampling), the scripted teacher (`--teacher scripted`, the offline heuristic reader, which only
 * knows the search agent's protocol), or episodes of runs already scored (`--from-runs`).
 */
export type SftSource = "sample" | "teacher" | "runs";

/** The `agent-lab prepare` flags that take local record files (PREPARE_STEP's list flags). */
export type PrepareFileFlag = "train" | "dev" | "test";

/**
 * Where `agent-lab prepare --env NAME` can take an environment's records from (Prepare Data offers
 * these): the Hugging Face dataset `--hub` downloads, and local files, one set per role in order
 * (each role's files go to its flag; the extension opens one file dialog per role).
 */
export interface PrepareSources {
  hub: { repo: string; config: string };
  local: {
    roles: readonly { flag: PrepareFileFlag; label: string }[];
    /** File name extensions prepare reads (no dot). */
    extensions: readonly string[];
    /** What the files are, in a few words ("the main config's records as JSONL or parquet"). */
    formats: string;
  };
}

/**
 * What an environment declares as pure data in its folder's info.ts: the registry (envs/catalog.ts)
 * lists these without loading an environment's code (its tokenizer, index, grader), so the
 * extension can list the environments at activation and the step specs can offer them as choices.
 */
export interface EnvironmentInfo {
  name: string;
  /** Bump when what an episode is changes (with HARNESS_VERSION's rules); manifests record it. */
  version: string;
  /** One line, for `--help`, pickers and error messages. */
  summary: string;
  /**
   * What its episodes are scored on: each record's `metrics` holds one value per declaration;
   * exactly one is `primary`, at least one is binary (base/runs/metrics.ts).
   */
  metrics: readonly MetricDeclaration[];
  /** Whether the model calls tools (searches are worth showing). */
  hasTools: boolean;
  /** What the questions are, for report headings ("Results on <dataset> test"). */
  dataset: string;
  /** The caveat a report on this environment's numbers carries. */
  limitation: string;
  /** The SFT data sources `sft-data` accepts for it (Collect SFT Data… offers only these). */
  sftSources: readonly SftSource[];
  /**
   * Whether its splits live in the config's dataDir itself rather than dataDir/<name> (the first
   * environment's, so workspaces from before environments keep working).
   */
  dataInDataDir?: boolean;
  /** Whether `agent-lab grade` can grade a reply of it (it exports a reply grader). */
  gradesReplies?: boolean;
  /**
   * What a generated task's answer is when `gen-tasks --env NAME` makes tasks for it (the filters'
   * answer check: a number, or any text); absent: gen-tasks does not offer it.
   */
  taskAnswerFormat?: TaskAnswerFormat;
  /**
   * Whether `sft-data` and `train-grpo` take `--train-tasks DIR` for it: its data reads a gen-tasks
   * folder as the train split (`EnvData.loadTrainTasks`, which it must then have). gen-tasks'
   * `--env` defaults to the first environment that says so.
   */
  trainsOnTaskSets?: boolean;
  /**
   * What the trace viewer, `show` and the episode list offer for its episodes beyond the metrics
   * and annotations: "searches" (counts, the searches filter) and "gold-in-results" (whether a gold
   * answer came back in the search results). Absent: none (a single-turn environment).
   */
  traceControls?: readonly TraceControl[];
  /**
   * How a tinker-cookbook run's config.json names this task (views/interop/cookbook-environment.ts):
   * `datasets` are the dataset or env names and dataset-builder classes (without "DatasetBuilder",
   * any case) that mean it; `recipes` the cookbook recipes (recipe_name without "recipe_") whose
   * runs are it when nothing names a dataset. Absent: cookbook runs are never taken for it.
   */
  cookbookNames?: { datasets: readonly string[]; recipes?: readonly string[] };
  /**
   * Where to find harder questions, for sft-data's advice when it keeps nearly every question (e.g.
   * a dataset's difficulty column). Absent: the advice names no place.
   */
  harderQuestions?: string;
  /** Where `prepare` takes its records from (absent: Prepare Data offers the hub download only). */
  prepareSources?: PrepareSources;
  /**
   * Items in its published evaluation set (the test split prepare writes from the full dataset):
   * what an experiment's cost estimate counts when its evaluation takes the whole split. Absent:
   * the estimate's default (steps/experiments/estimate.ts).
   */
  evalItems?: number;
  /**
   * Set on an offline world: the environment whose code, prompt, grader and metrics it reuses on
   * invented data. Its runs carry the world's own name, so views, compare and ablate keep them apart
   * from runs on the real dataset; `--env` choices stay the real environments.
   */
  worldOf?: string;
  /**
   * Set on an offline world: how its prepare names it in splits.json's `source` (then its style and
   * seed), by which reports recognise runs made on it before it had its own name.
   */
  preparedSource?: string;
  /**
   * Where it is listed among the environments (pickers, `--env` choices, the pipeline's): lower
   * first; one without is listed after those with one, by name. The first is the default environment.
   */
  order?: number;
  /**
   * Set on the one environment whose files may name none: the version a run manifest (or a report)
   * without an `environment` field means. Files from before environments existed name none, and new
   * manifests of it at this version still omit the field so their fingerprints match the old ones
   * (envs/manifest-environment.ts). envs/catalog.ts checks exactly one environment sets it.
   */
  impliedVersion?: string;
}

/** A trace control an environment offers (EnvironmentInfo.traceControls). */
export type TraceControl = "searches" | "gold-in-results";

/** A generated task's answer kind (steps/tasks/answer.ts reads a Python value as one). */
export type TaskAnswerFormat = "number" | "text";
