/**
 * Data: prepare any environment's data, build the BM25 index, try a search, collect SFT data.
 *
 *   agentLab.prepareData     environment, then its sources (the hub, or local files per role) → job `prepare --env …` (prepare-flow.ts)
 *   agentLab.buildIndex      (the corpus there, else an offer to prepare it) job `index` (BM25 of <dataDir>/corpus.jsonl)
 *   agentLab.searchCorpus    a query → job `search -- QUERY`, output shown
 *   agentLab.collectSftData  environment, source (the model, the scripted teacher, or existing eval runs: those the
 *                            environment's catalog entry lists), then
 *                            questions, tries, name → job `sft-data`; or runs, min reward, best-of → `sft-data --from-runs RUN...`
 */
import * as vscode from "vscode";
import { takesSftSource, type SftSource } from "../../core/envs/catalog";
import { INDEX_STEP, SEARCH_STEP, SFT_DATA_STEP } from "../../core/steps/catalog/catalog";
import { fromRunsValues, sftDataValues, uniqueRunName } from "./cli-args";
import { BUILD_INDEX_TITLE, ensureEnvironmentData, ensureIndexCorpus, prepareData } from "./prepare-flow";
import { startStep, takenRunNames, type CommandTable, type Lab } from "./lab";
import * as pick from "./pickers";

async function searchCorpus(lab: Lab): Promise<void> {
  const query = await vscode.window.showInputBox({
    title: "Agent Lab: Search Corpus",
    prompt: "BM25 query over the corpus (the agent's search tool)",
    placeHolder: "Ed Wood director",
  });
  if (!query?.trim()) return;
  await startStep(lab, {
    spec: SEARCH_STEP,
    values: {},
    positionals: [query.trim()],
    title: `Search: ${query.trim().slice(0, 40)}`,
    showProgress: false,
    revealOutput: true,
  });
}

async function collectSftData(lab: Lab): Promise<void> {
  const title = "Agent Lab: Collect SFT Data";
  const backend = lab.workspace.backend();
  const flags = SFT_DATA_STEP.flags;
  const env = await pick.pickEnvironment(title, lab.workspace.config().env);
  if (!env) return;
  const sources: { label: string; description: string; source: SftSource }[] = [
    {
      label: "Rejection sampling from the model",
      description: `backend ${backend}: best of N tries per question`,
      source: "sample",
    },
    { label: "Scripted teacher", description: "the offline heuristic reader (free)", source: "teacher" },
    {
      label: "From existing runs",
      description: "the scored episodes of eval runs already paid for: no sampling, no spend",
      source: "runs",
    },
  ];
  // Only what sft-data takes for this environment (the catalog says; the CLI refuses the rest).
  const source = await vscode.window.showQuickPick(
    sources.filter((s) => takesSftSource(env, s.source)),
    { title },
  );
  if (!source) return;
  if (source.source === "runs") return collectFromRuns(lab, title, env);
  // Sampling and the teacher read the train split (and val/test, to leave them out): there before asking more.
  if (!(await ensureEnvironmentData(lab, env, "Collect SFT Data"))) return;
  const teacher = source.source === "teacher";
  const questions = await pick.inputFlag(title, "Train questions to attempt", "questions", flags.questions);
  if (!questions) return;
  // The scripted teacher is deterministic: one try per question is all it can give.
  const tries = await pick.inputFlag(title, "Tries per question", "tries", flags.tries, teacher ? 1 : undefined);
  if (!tries) return;
  const taken = takenRunNames(lab);
  const name = await pick.inputRunName(title, uniqueRunName(flags.name.default, taken), taken);
  if (!name) return;
  await startStep(lab, {
    spec: SFT_DATA_STEP,
    values: sftDataValues({ name, env, backend, questions, tries, teacher: teacher ? "scripted" : undefined }),
    title: `Collect ${env} SFT data: ${name}`,
  });
}

/** `sft-data --from-runs RUN...`: eval runs of the environment, a reward threshold, the best K per question. */
async function collectFromRuns(lab: Lab, title: string, env: string): Promise<void> {
  const flags = SFT_DATA_STEP.flags;
  const runs = await pick.pickSourceRuns(title, lab.runs.currentRows(), env);
  if (!runs) return;
  const minReward = await pick.inputFlag(
    title,
    `Keep episodes with reward ≥ R (blank = --min-f1, ${flags["min-f1"].default})`,
    "min-reward",
    flags["min-reward"],
    undefined,
    true,
  );
  if (minReward === null) return;
  const bestOf = await pick.inputFlag(
    title,
    "Best K episodes per question (by reward, newest first among equals)",
    "best-of",
    flags["best-of"],
  );
  if (!bestOf) return;
  const taken = takenRunNames(lab);
  const name = await pick.inputRunName(title, uniqueRunName(`${flags.name.default}-from-runs`, taken), taken);
  if (!name) return;
  await startStep(lab, {
    spec: SFT_DATA_STEP,
    values: fromRunsValues({ name, env, minReward, bestOf }),
    positionals: runs.map((r) => r.dir),
    title: `Collect ${env} SFT data from ${runs.length} run${runs.length === 1 ? "" : "s"}: ${name}`,
  });
}

export function dataCommands(lab: Lab): CommandTable {
  return {
    "agentLab.prepareData": () => prepareData(lab),
    "agentLab.buildIndex": async () =>
      (await ensureIndexCorpus(lab)) && startStep(lab, { spec: INDEX_STEP, values: {}, title: BUILD_INDEX_TITLE }),
    "agentLab.searchCorpus": () => searchCorpus(lab),
    "agentLab.collectSftData": () => collectSftData(lab),
  };
}
