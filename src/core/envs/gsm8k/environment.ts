/**
 * GSM8K (the second environment): grade-school math, single turn, no tools, prompted and graded as
 * tinker-cookbook's `math_rl` recipe does, so accuracy is comparable with cookbook runs.
 *
 * - Data: `<dataDir>/gsm8k/` (train/val/test.jsonl + splits.json with the locked test hash), from
 *   the hub's `openai/gsm8k` (config `main`) or local files (see data.ts).
 * - Prompt: the few-shot strawberry exchange, then the question + " Write your answer in \boxed{}
 *   format."; no system message unless `--prompt FILE` gives one (the config's systemPromptFile is
 *   the HotpotQA agent's and is not applied here); thinking per the `thinking` setting.
 * - One reply, graded on its last `\boxed{}`. End: "answer" when the reply has a box, "no_action"
 *   when it has none, "length" when the token limit cut it (it is still graded, on its raw text, as
 *   the cookbook does).
 * - Reward = 1 when correct, else 0; with `formatPenalty` c > 0 the cookbook's format term is
 *   added: c·(format_ok − 1), where format_ok = the reply stopped cleanly and has a box.
 * - em = f1 = correct (no partial credit). Record fields: `correct`, `extracted` (null: no box),
 *   `reference`, `format_ok`, and `boxed` ({turn, start, end}: the box content's character span in
 *   that turn's reply, or null).
 */
import { join } from "node:path";
import type { ChatMessage } from "../../base/chat";
import type { Split } from "../../base/data/question";
import { UserError } from "../../base/errors";
import type {
  EndReason,
  EnvEpisode,
  EnvItem,
  EnvRun,
  Environment,
  EpisodeScore,
  EpisodeTurn,
  PrepareOptions,
  Rescored,
  TraceAnnotations,
  TurnOutcome,
} from "../../harness/environment";
import { downloadGsm8k, loadGsm8kSplit, readGsm8kRecords, writeGsm8kSplits, type Gsm8kRecord } from "./data";
import { gradeAnswer, gradeReply, referenceAnswer } from "./index";
import { gsm8kPrompt } from "./prompt";
import { GSM8K_INFO as INFO, GSM8K_NAME } from "./info";
import { loadGsm8kTrainTasks } from "./train-tasks";

export { GSM8K_NAME };
export const GSM8K_VERSION = INFO.version;
export const GSM8K_SCORER_VERSION = "gsm8k-cookbook-math-grader-1";

export interface Gsm8kItem extends EnvItem {
  /** The worked solution with its `#### N` line (what the grader reads the reference from). */
  solution: string;
}

/** The box content's character span in `reply` (the last box, as graded), or null. */
export function boxedSpan(reply: string, extracted: string | undefined): { start: number; end: number } | null {
  if (extracted === undefined) return null;
  const braced = reply.lastIndexOf(`\\boxed{${extracted}}`);
  if (braced >= 0) return { start: braced + "\\boxed{".length, end: braced + "\\boxed{".length + extracted.length };
  const at = reply.indexOf(extracted, Math.max(0, reply.lastIndexOf("\\boxed")));
  return at >= 0 ? { start: at, end: at + extracted.length } : null;
}

class Gsm8kEpisode implements EnvEpisode {
  readonly toolCalls: string[] = [];
  private verdict: ReturnType<typeof gradeReply> | undefined;
  private span: { turn: number; start: number; end: number } | null = null;
  private formatOk = false;

  constructor(
    readonly prompt: number[],
    private readonly item: Gsm8kItem,
    private readonly formatPenalty: number,
  ) {}

  onReply(turn: EpisodeTurn): TurnOutcome {
    const stopped = turn.stopReason !== "length";
    this.verdict = gradeReply(turn.reply, this.item.solution, { stopped });
    const box = boxedSpan(turn.reply, this.verdict.extracted);
    this.span = box ? { turn: 0, ...box } : null;
    this.formatOk = stopped && this.verdict.extracted !== undefined;
    turn.action = this.verdict.extracted !== undefined ? "answer" : "none";
    return { end: !stopped ? "length" : this.verdict.extracted !== undefined ? "answer" : "no_action" };
  }

  score(_end: EndReason): EpisodeScore {
    const correct = this.verdict?.correct ?? false;
    return {
      prediction: this.verdict?.extracted ?? "",
      ...verdictScore(correct, this.formatOk, this.formatPenalty),
      fields: {
        correct,
        extracted: this.verdict?.extracted ?? null,
        reference: this.item.answers[0],
        format_ok: this.formatOk,
        boxed: this.span,
      },
    };
  }
}

/** A verdict's metrics and reward: 1 when correct, plus the cookbook's format term c·(format_ok − 1) when c > 0. */
function verdictScore(
  correct: boolean,
  formatOk: boolean,
  formatPenalty: number,
): { metrics: { correct: number }; reward: number } {
  const credit = correct ? 1 : 0;
  return {
    metrics: { correct: credit },
    reward: credit + (formatPenalty > 0 ? formatPenalty * ((formatOk ? 1 : 0) - 1) : 0),
  };
}

/**
 * A recorded episode graded again: the recorded extracted answer (the reply's last \boxed{}; null
 * when it had none) against the recorded reference, with the format penalty its manifest records.
 */
function rescore(
  record: Readonly<Record<string, unknown>>,
  manifest: Readonly<Record<string, unknown>> | undefined,
): Rescored {
  const extracted = typeof record.extracted === "string" ? record.extracted : undefined;
  const reference =
    typeof record.reference === "string"
      ? record.reference
      : Array.isArray(record.answers) && typeof record.answers[0] === "string"
        ? record.answers[0]
        : "";
  const grading = (manifest?.grading ?? {}) as { format_penalty?: unknown };
  const penalty = typeof grading.format_penalty === "number" ? grading.format_penalty : 0;
  const correct = gradeAnswer(extracted, reference);
  return { ...verdictScore(correct, record.format_ok === true, penalty), fields: { correct } };
}

async function prepare(o: PrepareOptions): Promise<string[]> {
  const local = Boolean(o.train?.length || o.test?.length);
  if (local && !(o.train?.length && o.test?.length))
    throw new UserError("GSM8K needs both train and test files (JSONL {question, answer} or .parquet)");
  const files = local
    ? {
        train: o.train!,
        test: o.test!,
        description: `local files: train ${o.train!.join(", ")}; test ${o.test!.join(", ")}`,
      }
    : await downloadGsm8k({ onProgress: o.onProgress, log: o.log });
  const read = async (list: string[]): Promise<Gsm8kRecord[]> =>
    (await Promise.all(list.map((f) => readGsm8kRecords(f)))).flat();
  const r = await writeGsm8kSplits(o.outDir, await read(files.train), await read(files.test), files.description);
  return [
    `train ${r.counts.train} | val ${r.counts.val} | test ${r.counts.test}`,
    `test.jsonl sha256 ${r.testSha256.slice(0, 16)}  (${r.officialTest ? "the official GSM8K test set" : "not the official GSM8K test set"}; recorded in ${join(o.outDir, "splits.json")})`,
  ];
}

export const GSM8K: Environment<Gsm8kItem> = {
  name: GSM8K_NAME,
  version: GSM8K_VERSION,
  summary: INFO.summary,
  metrics: INFO.metrics,
  scorerVersion: GSM8K_SCORER_VERSION,
  tools: [],
  sftRequiresToolUse: false,
  data: {
    dir: (dataDir) => join(dataDir, GSM8K_NAME),
    load: (dir: string, split: Split) =>
      loadGsm8kSplit(dir, split).map((r) => ({
        id: r.id,
        question: r.question,
        answers: [r.reference],
        solution: r.answer,
      })),
    prepare,
    loadTrainTasks: loadGsm8kTrainTasks,
  },
  defaultPromptFile: () => undefined,
  replyGrader: {
    badAnswer: (answer) =>
      referenceAnswer(answer) === undefined ? '"answer" has no "#### N" final answer line' : undefined,
    grade: (response, answer) => gradeReply(response, answer),
  },
  open: async (o): Promise<EnvRun<Gsm8kItem>> => {
    const thinking = o.config.thinking;
    const formatPenalty = o.config.formatPenalty;
    return {
      fingerprint: {
        grading: { grader: GSM8K_SCORER_VERSION, format_penalty: formatPenalty },
        prompt: { few_shot: "strawberry", thinking },
      },
      thinking,
      start: (item, setup) => {
        const p = gsm8kPrompt(item.question, { thinking });
        const messages: ChatMessage[] =
          setup.systemPrompt !== undefined
            ? [{ role: "system", content: setup.systemPrompt }, ...p.messages]
            : p.messages;
        const prompt = setup.tokenizer.encode(
          setup.tokenizer.renderChat(messages, { addGenerationPrompt: true, thinking: p.thinking }),
        );
        return new Gsm8kEpisode(prompt, item, formatPenalty);
      },
    };
  },
  annotate: (record): TraceAnnotations => {
    const extracted = typeof record.extracted === "string" ? record.extracted : null;
    const box = record.boxed as { turn: number; start: number; end: number } | null | undefined;
    return {
      notes: [
        { label: "extracted answer", value: extracted ?? "(no \\boxed{} answer)" },
        { label: "reference", value: String(record.reference ?? "") },
        { label: "correct", value: record.correct === true ? "yes" : "no" },
      ],
      spans: box ? [{ ...box, label: "boxed answer" }] : [],
    };
  },
  rescore,
};

/** The name the registry finds it by (envs/folders.ts). */
export const ENVIRONMENT = GSM8K;
