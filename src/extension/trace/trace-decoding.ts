/**
 * The trace viewer's work that needs the run's tokenizer (and its environment's code), done in the
 * trace worker (trace-worker.ts) rather than on the extension host's thread: loading Qwen's
 * tokenizer holds its thread for most of a second in one piece (transformers.js parses the 11 MB
 * tokenizer.json and makes its vocabulary and merges into maps), and during that time the host
 * answers no view, no webview message and no command. The host asks with episode records it has
 * read (trace-run.ts) and gets back what the webview shows. Everything else in a window that decodes
 * episodes asks here too, so the host never loads a tokenizer: the Runs tree's failure labels, the
 * Compare panel's pair view and failure labels (of runs small enough not to need their own worker)
 * and the training dashboard's sample episodes. Nothing here imports vscode.
 */
import type { ChatTokenizer } from "../../core/base/chat/tokenizer";
import { readRun, type EpisodeRecord } from "../../core/base/runs/run-files";
import { tokenizerForRun } from "../../core/base/runs/run-tokenizer";
import { environmentMetrics } from "../../core/envs/catalog";
import { environmentOfManifest } from "../../core/envs/registry";
import { loadSystemPrompt } from "../../core/harness/prompts";
import {
  checkEpisodeDrift,
  countEpisodeDrift,
  type DriftReport,
  type DriftSettings,
  type RunDriftCounts,
} from "../../core/views/trace/drift";
import { readRunFailures, type RunFailures } from "../../core/views/failures/run-failures";
import type { FailureComparison } from "../../core/views/failures/compare-failures";
import { compareFailuresOfDirs, type FailuresRequest } from "../../core/views/failures/failures-off-thread";
import { groupEpisodeViews, type GroupRecord } from "../../core/views/trace/dashboard-view";
import { loadPair } from "../../core/views/trace/load-pair";
import type { PairView } from "../../core/views/trace/pair-view";
import { goldInResults, resultTexts, type GoldInResults } from "../../core/views/trace/gold-in-results";
import type { RunViewSpec } from "../../core/views/trace/run-view";
import { decodePerToken } from "../../core/views/trace/token-text";
import { buildTraceView, type TraceEpisodeView } from "../../core/views/trace/trace-view";

/** What the host asks; `tokenizer` is the name a run's manifest records. */
export type TraceDecodeRequest =
  /** Loads the tokenizer and warms its code; answers its problem (undefined: loaded). */
  | { kind: "load"; tokenizer: string }
  /** The episode as the viewer shows it; `tokenizer` null: the load failed with `problem`, show its ids. */
  | {
      kind: "episode";
      tokenizer: string | null;
      problem?: string;
      manifest: unknown;
      record: EpisodeRecord;
      view: RunViewSpec;
    }
  /** Each episode's decoded result texts, and its gold-in-results where the environment searches. */
  | { kind: "results"; tokenizer: string; records: EpisodeRecord[]; gold: boolean }
  /** One episode's drift check, with its replies. */
  | { kind: "drift"; tokenizer: string; record: EpisodeRecord; settings: DriftSettings }
  /** `counts` with the episodes' drift added. */
  | { kind: "countDrift"; tokenizer: string; records: EpisodeRecord[]; settings: DriftSettings; counts: RunDriftCounts }
  /** The run's failure labels with their table (the Runs tree, trace-failures.ts); `dataDir`: the workspace's data folder. */
  | { kind: "runFailures"; runDir: string; dataDir: string | undefined }
  /** The Compare panel's failure labels of these runs compared. */
  | ({ kind: "compareFailures" } & FailuresRequest)
  /** One question's episodes of two runs, aligned turn by turn (the Compare panel's pair view). */
  | { kind: "pair"; dirs: [string, string]; questionId: string; names: [string, string] }
  /** A GRPO group's episodes as the training dashboard shows them. */
  | { kind: "group"; runDir: string; group: GroupRecord };

export interface DecodedResults {
  texts: string[][];
  /** Per episode; null where the environment has no search results to look in. */
  gold: GoldInResults[] | null;
}

/** The answer to each kind of request. */
export interface TraceDecodeAnswers {
  load: string | undefined;
  episode: TraceEpisodeView;
  results: DecodedResults;
  drift: DriftReport;
  countDrift: RunDriftCounts;
  runFailures: RunFailures | undefined;
  compareFailures: FailureComparison | undefined;
  pair: PairView;
  group: TraceEpisodeView[];
}

/**
 * Renders, encodes and decodes a short chat (the default system prompt and a question), so that the
 * window's first trace does not run this code cold. Cold, an episode's first view took 50–65 ms
 * (idle machine) and 180–250 ms under load, the next ones 1–2 ms; after this, 4–9 ms under load.
 * Its ids are also the first ones of every episode that uses the default prompt.
 */
export function warmDecoding(tok: ChatTokenizer): void {
  try {
    const chat = tok.renderChat(
      [
        { role: "system", content: loadSystemPrompt().text },
        { role: "user", content: "Which magazine was started first, Arthur's Magazine or First for Women?" },
      ],
      { addGenerationPrompt: true },
    );
    decodePerToken(tok, tok.encode(chat));
  } catch {
    // Only a warm-up: the trace that needs the tokenizer decodes with or without it.
  }
}

/** A worker's answers: each tokenizer is loaded (and warmed) once; a failed load is tried again when asked again. */
export function traceDecoding(): (req: TraceDecodeRequest) => Promise<TraceDecodeAnswers[TraceDecodeRequest["kind"]]> {
  const loaded = new Map<string, ChatTokenizer>();

  const load = async (name: string): Promise<{ tok?: ChatTokenizer; problem?: string }> => {
    const had = loaded.get(name);
    if (had) return { tok: had };
    const { tokenizer, problem } = await tokenizerForRun(name || undefined);
    if (!tokenizer) return { problem };
    warmDecoding(tokenizer);
    loaded.set(name, tokenizer);
    return { tok: tokenizer };
  };
  /** A tokenizer the host saw loaded; a failure now (it was loaded once) is an error, not a problem to show. */
  const tokenizer = async (name: string): Promise<ChatTokenizer> => {
    const { tok, problem } = await load(name);
    if (!tok) throw new Error(problem);
    return tok;
  };

  return async (req) => {
    switch (req.kind) {
      case "load":
        return (await load(req.tokenizer)).problem;
      case "episode": {
        const tok = req.tokenizer === null ? undefined : await tokenizer(req.tokenizer);
        const environment = environmentOfManifest(req.manifest);
        return buildTraceView(req.record, tok, { drift: false, environment, view: req.view }, req.problem);
      }
      case "results": {
        const tok = await tokenizer(req.tokenizer);
        const texts = req.records.map((e) => resultTexts(e, tok));
        return { texts, gold: req.gold ? req.records.map((e, k) => goldInResults(e, tok, texts[k])) : null };
      }
      case "drift":
        return checkEpisodeDrift(await tokenizer(req.tokenizer), req.record, req.settings);
      case "countDrift": {
        const tok = await tokenizer(req.tokenizer);
        for (const e of req.records) countEpisodeDrift(req.counts, tok, e, req.settings);
        return req.counts;
      }
      case "runFailures": {
        const { manifest, episodes } = readRun(req.runDir, environmentMetrics);
        return readRunFailures({ manifest, episodes, dataDir: req.dataDir });
      }
      case "compareFailures":
        return compareFailuresOfDirs(req);
      case "pair":
        return loadPair(req.dirs, req.questionId, req.names);
      case "group":
        return groupEpisodeViews(req.runDir, req.group);
    }
  };
}
