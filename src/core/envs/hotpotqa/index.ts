/**
 * The HotpotQA research agent (the recipe's first environment): distractor questions, a BM25 search
 * tool over their paragraphs, the `<search>` / `<answer>` protocol, reward = F1 of the answer.
 * Its data is the config's dataDir itself (prepare, index), so workspaces from before environments
 * existed are HotpotQA workspaces unchanged; its manifests carry no `environment` field (see
 * envs/manifest.ts), which keeps their runs resumable and their fingerprints as they were.
 */
import { join } from "node:path";
import { downloadHotpotQA } from "./hub";
import { PUBLISHED_TEST_SHA256_PREFIX, prepareData } from "./prepare";
import type { Question } from "../../base/data/question";
import { SPLITS_FILE, loadSplit } from "../../base/data/splits";
import { UserError } from "../../base/errors";
import { defaultSystemPromptFile } from "../../harness/prompts";
import { exactMatch, f1Score, normalizeAnswer, SCORER_VERSION } from "./score";
import { openSearcher } from "./open-searcher";
import { importCorpus } from "./import-corpus";
import type { Searcher } from "../../base/search/searcher";
import type { Environment, EnvRun, EnvRunOptions } from "../../harness/environment";
import { answerScore, HotpotEpisode } from "./episode";

import { HOTPOTQA_INFO, HOTPOTQA_NAME } from "./info";

export { HOTPOTQA_NAME };
/** Bump in info.ts when what an episode is changes (with HARNESS_VERSION's rules). */
export const HOTPOTQA_VERSION = HOTPOTQA_INFO.version;

async function open(o: EnvRunOptions): Promise<EnvRun<Question>> {
  const closedBook = o.closedBook ?? false;
  const searcher: Searcher | null = o.searcher !== undefined ? o.searcher : closedBook ? null : await openSearcher(o);
  const settings = { closedBook, topK: o.config.topK, maxSearches: o.config.maxSearches };
  // Training steps have no closed-book mode and have never recorded the field.
  const search = {
    ...(o.closedBook !== undefined ? { closed_book: closedBook } : {}),
    top_k: o.config.topK,
    max_searches: o.config.maxSearches,
    searcher: searcher ? searcher.describe() : null,
  };
  return {
    fingerprint: { search },
    // Its turns are stitched with the empty think block (chat/turns.ts): the config's thinking does not apply.
    thinking: false,
    start: (item, setup) => {
      if (setup.systemPrompt === undefined) throw new UserError("the HotpotQA agent needs a system prompt");
      return new HotpotEpisode(item, searcher, settings, setup.tokenizer, setup.systemPrompt);
    },
  };
}

export const HOTPOTQA: Environment<Question> = {
  name: HOTPOTQA_NAME,
  version: HOTPOTQA_VERSION,
  summary: HOTPOTQA_INFO.summary,
  metrics: HOTPOTQA_INFO.metrics,
  scorerVersion: SCORER_VERSION,
  // In the order experiments have hashed them since evaluator identities existed (same hash, same id).
  scoringFunctions: [normalizeAnswer, exactMatch, f1Score],
  tools: [
    {
      name: "search",
      description:
        "BM25 search over the Wikipedia paragraphs; the harness returns the top paragraphs in a <result> block",
      parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
    },
  ],
  toolCallsLabel: "searches",
  sftRequiresToolUse: true,
  data: {
    dir: (dataDir) => dataDir,
    load: (dir, split) => loadSplit(dir, split),
    prepare: async (o) => {
      const local = Boolean(o.train?.length || o.test?.length);
      const input = local
        ? {
            trainFiles: o.train!,
            devFiles: o.test!,
            source: `local files: train ${o.train!.join(", ")}; dev ${o.test!.join(", ")}`,
          }
        : await downloadHotpotQA({ onProgress: o.onProgress, log: o.log }).then((g) => ({
            trainFiles: g.train,
            devFiles: g.dev,
            source: g.description,
          }));
      const r = await prepareData(o.outDir, input, o.log, { replaceTestSplit: o.replaceTestSplit });
      for (const note of r.notes) o.log(`note: ${note}`);
      const n = (x: number) => x.toLocaleString("en-US");
      const short = r.testSha256.slice(0, 16);
      const verdict =
        short === PUBLISHED_TEST_SHA256_PREFIX
          ? "matches the recipe's published hash"
          : `the recipe's full dataset gives ${PUBLISHED_TEST_SHA256_PREFIX}`;
      return [
        ...(r.testReplaced ? [`replaced the locked test split (--replace-test-split): ${r.testReplaced}`] : []),
        `corpus ${n(r.counts.corpus)} paragraphs | train ${n(r.counts.train)} | val ${n(r.counts.val)} | test ${n(r.counts.test)}`,
        `test.jsonl sha256 ${short}  (${verdict}; recorded in ${join(o.outDir, SPLITS_FILE)})`,
      ];
    },
    importCorpus,
  },
  defaultPromptFile: ({ closedBook }) => defaultSystemPromptFile(closedBook),
  open,
  // The recorded answer against the recorded gold answers, as the episode scored it.
  rescore: (record) =>
    answerScore(recordedString(record.prediction), recordedAnswers(record), recordedString(record.end)),
  scorePrediction: (prediction, answers) => answerScore(prediction, answers, "answer").metrics,
};

const recordedString = (v: unknown): string => (typeof v === "string" ? v : "");
const recordedAnswers = (record: Readonly<Record<string, unknown>>): string[] =>
  Array.isArray(record.answers) ? record.answers.filter((a): a is string => typeof a === "string") : [];

export { HotpotEpisode, runEpisode, type EpisodeOptions, type HotpotSettings } from "./episode";
export { firstTagged, parseAction, type Action } from "./actions";
export { EMPTY_QUERY, LAST_SEARCH, NO_RESULTS, formatResults, resultBlock } from "./results";
