/**
 * `agent-lab experiment validate DIR`: the reviewer's checks on an experiment record, each passed,
 * failed or unverifiable with its reason. Every check recomputes from the files (eval episodes,
 * run manifests, groups.jsonl, tasks and audits, ledgers), never trusts the record's own numbers:
 *
 *   same-evaluator   every arm scored by the evaluator the record names (identity from each eval run's manifest)
 *   same-items       the item manifest is there, hashes as recorded, and every eval run holds exactly its items
 *   hashes           spec (and every arm run's record of it), per-item scores, data sources, adaptation batches and generation audits rehash as recorded
 *   no-train-in-eval nothing any arm trained on — its GRPO episodes, its SFT data rows, its task items — is an eval item (by id or normalised text)
 *   budget           the runs' ledgers add up to the recorded spend, within the spec's cap
 *   scores           per-item scores and per-arm means recomputed from the eval episodes match the record
 *   criterion        intervals, recovery and the verdict recomputed from those scores match the record
 *   sweep            (a sweep only) every sweep arm's runs are its own (run names, the swept values in its
 *                    training run's manifest, the checkpoint its eval scored), and the ranking, paired
 *                    intervals, Holm adjustment and best-arm claim recomputed from the scores match
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { environmentByName } from "../../envs/registry";
import { readLedger } from "../../base/ledger";
import { readStepRewards, rewardTrend } from "../pipeline/reward-trend";
import { sha256File, sha256Hex, type RunManifest } from "../../base/runs/manifest";
import { readEpisodes, readJsonFile } from "../../base/runs/run-files";
import type { MetricDeclaration } from "../../base/runs/metrics";
import { isRunFolder, RUN_FILES, runFile } from "../../base/runs/run-folder";
import { normalizeText } from "../../base/task-sets/text";
import { readJsonl } from "../../base/util/jsonl";
import { decideVerdict, experimentNumbers } from "./analysis";
import { canonicalJson, evaluatorFromManifest, evaluatorId } from "./evaluator";
import {
  EXPERIMENT_FILES,
  readExperimentRecord,
  type CheckResult,
  type CheckStatus,
  type ExperimentRecord,
} from "./record";
import { adaptationRecord, armInitialisation } from "./adaptation";
import { experimentMetric } from "./metric";
import { armCheckpointName, readExperimentSpec, type ExperimentSpec } from "./spec";
import { sweepNumbers } from "./sweep-analysis";
import { SWEEP_PARAMS } from "./sweep-spec";
import { resolveCheckpointPath } from "../../base/checkpoints/registry";
import { describeEdited, regradeRun, type RegradedRun } from "./regrade";
import { runSpecSha256 } from "./spec-binding";
import { ablate, loadAblationInputs } from "../ablate";
import { FileFormatError, UserError } from "../../base/errors";
import { type TaskRecord } from "../tasks/filter";
import { TASKS_FILE } from "../../base/task-sets/files";
import { environmentMetrics } from "../../envs/catalog";

export const CHECKS = [
  "same-evaluator",
  "same-items",
  "hashes",
  "no-train-in-eval",
  "budget",
  "scores",
  "criterion",
] as const;

/** The check a sweep adds (records without a sweep keep the seven above). */
export const SWEEP_CHECK = "sweep";

export interface ValidationResult {
  passed: string[];
  failed: string[];
  unverifiable: string[];
  checks: CheckResult[];
}

/** Numbers equal up to float noise (the record is JSON: doubles survive exactly, but be lenient). */
const same = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

class Unverifiable extends Error {}
class Failed extends Error {}

export function validateExperiment(recordDir: string): ValidationResult {
  const file = join(recordDir, EXPERIMENT_FILES.record);
  if (!existsSync(file))
    throw new UserError(
      `${recordDir} holds no ${EXPERIMENT_FILES.record}: give the experiment's record folder (runs/<name>)`,
    );
  const record = readExperimentRecord(file);
  const specFile = join(recordDir, EXPERIMENT_FILES.spec);
  const spec = readableSpec(specFile);
  if (spec) requireSpecArms(file, record, spec);
  const ws = resolve(recordDir, ...record.record_dir.split(/[\\/]/).map(() => ".."));
  const at = (p: string) => join(ws, p);
  const arms = Object.keys(record.scores);
  const metric = experimentMetric(record.evaluation.env, record.metric);
  const regraded = new Map<string, RegradedRun>();
  /** An arm's eval run regraded by its environment's grader (what every score is recomputed from). */
  const regradedOf = (arm: string, m: MetricDeclaration) => {
    episodesOf(arm); // unverifiable when the run is not here
    let r = regraded.get(arm);
    if (!r) regraded.set(arm, (r = regradeRun(at(record.scores[arm].run), m)));
    return r;
  };
  const evalEpisodes = new Map<string, ReturnType<typeof readEpisodes>>();
  const episodesOf = (arm: string) => {
    const run = record.scores[arm].run;
    if (!existsSync(at(run))) throw new Unverifiable(`${run} is not here (copy the experiment with its runs)`);
    let eps = evalEpisodes.get(arm);
    if (!eps) evalEpisodes.set(arm, (eps = readEpisodes(at(run), environmentMetrics)));
    return eps;
  };
  const items = () => {
    const f = join(recordDir, record.evaluation.items_file);
    if (!existsSync(f))
      throw new Failed(`item IDs or a hashed item manifest are required: ${record.evaluation.items_file} is missing`);
    return readFileSync(f, "utf8").split("\n").filter(Boolean);
  };
  /**
   * Per-item scores recomputed from the eval episodes, in item-manifest order: each episode regraded
   * by its environment's grader, and an episode whose recorded score is not what it regrades to fails.
   */
  const recomputedScores = (): Record<string, number[]> => {
    const ids = items();
    if (!metric)
      throw new Unverifiable(
        `the record's metric ${JSON.stringify(record.metric)} is not one ${record.evaluation.env} declares in this build`,
      );
    const out: Record<string, number[]> = {};
    for (const a of arms) {
      const r = regradedOf(a, metric);
      if (r.edited.length) throw new Failed(describeEdited(record.scores[a].run, r, metric));
      out[a] = ids.map((id) => {
        const score = r.scores.get(id);
        if (score === undefined) throw new Failed(`${record.scores[a].run} has no episode for item ${id}`);
        return score;
      });
    }
    return out;
  };

  const checks: Record<(typeof CHECKS)[number], () => string> = {
    "same-evaluator": () => {
      const named = evaluatorId(record.evaluation.evaluator);
      if (named !== record.evaluation.evaluator_id)
        throw new Failed(
          `evaluation.evaluator hashes to ${named.slice(0, 12)}…, the record's evaluator_id says ${record.evaluation.evaluator_id.slice(0, 12)}…`,
        );
      for (const a of arms) {
        const run = record.scores[a].run;
        if (!existsSync(at(run))) throw new Unverifiable(`${run} is not here`);
        const m = readJsonFile<RunManifest>(runFile(at(run), "manifest"));
        if (!m) throw new Failed(`${run} has no manifest.json: its evaluator cannot be identified`);
        let id = evaluatorId(evaluatorFromManifest(m));
        // A record of an earlier build hashed its grader's text as printed; the same build still prints it alike.
        const asPrinted = evaluatorId(evaluatorFromManifest(m, "as-printed"));
        if (id !== record.evaluation.evaluator_id && asPrinted === record.evaluation.evaluator_id) id = asPrinted;
        if (id !== record.evaluation.evaluator_id)
          throw new Failed(
            `${a} (${run}) was scored by evaluator ${id.slice(0, 12)}…, not the record's ${record.evaluation.evaluator_id.slice(0, 12)}… (${diffEvaluators(record, m)})`,
          );
        if (record.scores[a].evaluator_id !== id)
          throw new Failed(
            `scores.${a}.evaluator_id says ${record.scores[a].evaluator_id.slice(0, 12)}…, its run's manifest gives ${id.slice(0, 12)}…`,
          );
      }
      return `${arms.length} evaluations (${arms.join(", ")}), one evaluator ${record.evaluation.evaluator_id.slice(0, 12)}…`;
    },
    "same-items": () => {
      const ids = items();
      const sha = sha256Hex(ids.map((i) => `${i}\n`).join(""));
      if (sha !== record.evaluation.items_sha256)
        throw new Failed(
          `${record.evaluation.items_file} hashes to ${sha.slice(0, 12)}…, the record says ${record.evaluation.items_sha256.slice(0, 12)}…`,
        );
      if (ids.length !== record.evaluation.n)
        throw new Failed(
          `${record.evaluation.items_file} lists ${ids.length} items, the record says n = ${record.evaluation.n}`,
        );
      const want = new Set(ids);
      for (const a of arms) {
        const got = new Set(episodesOf(a).map((e) => e.id));
        const extra = [...got].filter((id) => !want.has(id));
        const missing = ids.filter((id) => !got.has(id));
        if (extra.length || missing.length)
          throw new Failed(
            `${record.scores[a].run} was evaluated on other items: ${extra.length} not in the manifest${extra.length ? ` (e.g. ${extra[0]})` : ""}, ${missing.length} missing${missing.length ? ` (e.g. ${missing[0]})` : ""}`,
          );
      }
      return `${ids.length} items, ${sha.slice(0, 12)}…, the same for all ${arms.length} evaluations`;
    },
    hashes: () => {
      if (!existsSync(specFile))
        throw new Failed(`${EXPERIMENT_FILES.spec} is missing: the spec the record claims cannot be rehashed`);
      if (sha256File(specFile) !== record.spec_sha256)
        throw new Failed(
          `${EXPERIMENT_FILES.spec} hashes to ${sha256File(specFile).slice(0, 12)}…, the record says ${record.spec_sha256.slice(0, 12)}…`,
        );
      // The experiment's own manifest took the spec's hash when it started, and every phase ran under it.
      const started = readJsonFile<{ spec_sha256?: unknown }>(runFile(recordDir, "manifest"));
      if (!started)
        throw new Failed(`${RUN_FILES.manifest} is missing: the spec the experiment started with is unknown`);
      if (started.spec_sha256 !== record.spec_sha256)
        throw new Failed(
          `${EXPERIMENT_FILES.spec} hashes to ${record.spec_sha256.slice(0, 12)}…, but the experiment ran under spec ${String(started.spec_sha256).slice(0, 12)}… (its ${RUN_FILES.manifest})`,
        );
      // Every arm run recorded the spec it ran under: a spec rehashed into the record and the experiment's manifest alone shows here.
      const armRuns = [...new Set([...record.arms.map((a) => a.run), ...arms.map((a) => record.scores[a].run)])];
      const unbound: string[] = [];
      for (const run of armRuns) {
        if (!existsSync(at(run))) throw new Unverifiable(`${run} is not here (copy the experiment with its runs)`);
        const ranUnder = runSpecSha256(at(run));
        if (ranUnder === undefined) unbound.push(run);
        else if (ranUnder !== record.spec_sha256)
          throw new Failed(
            `${EXPERIMENT_FILES.spec} hashes to ${record.spec_sha256.slice(0, 12)}…, but ${run} ran under spec ${ranUnder.slice(0, 12)}… (its ${RUN_FILES.experimentSpec})`,
          );
      }
      for (const a of arms) {
        const { run, episodes_sha256 } = record.scores[a];
        if (episodes_sha256 === undefined) continue; // a record of an earlier build: its regrade still checks every score
        const episodes = runFile(at(run), "episodes");
        if (!existsSync(episodes)) throw new Unverifiable(`${run} is not here (copy the experiment with its runs)`);
        if (sha256File(episodes) !== episodes_sha256)
          throw new Failed(
            `${join(run, RUN_FILES.episodes)} hashes to ${sha256File(episodes).slice(0, 12)}…, the record says ${episodes_sha256.slice(0, 12)}…`,
          );
      }
      const scoresFile = join(recordDir, record.evaluation.scores_file);
      if (!existsSync(scoresFile)) throw new Failed(`${record.evaluation.scores_file} is missing`);
      if (sha256File(scoresFile) !== record.evaluation.scores_sha256)
        throw new Failed(
          `${record.evaluation.scores_file} hashes to ${sha256File(scoresFile).slice(0, 12)}…, the record says ${record.evaluation.scores_sha256.slice(0, 12)}…`,
        );
      let n = 3 + arms.filter((a) => record.scores[a].episodes_sha256 !== undefined).length;
      for (const [i, arm] of record.arms.entries()) {
        // What the arm started from, as its training run's manifest says.
        if (!existsSync(at(arm.run))) throw new Unverifiable(`${arm.run} (arm ${arm.name}'s run) is not here`);
        const manifest = readJsonFile<Record<string, unknown>>(runFile(at(arm.run), "manifest")) ?? {};
        const init = armInitialisation(manifest, { base_model: record.base_model, init_state: record.init.state });
        const initDiff = firstDifference(init, arm.initialisation, `arms[${i}].initialisation`);
        if (initDiff) throw new Failed(`${initDiff} from ${join(arm.run, RUN_FILES.manifest)}`);
        if (!existsSync(at(arm.data.source)))
          throw new Unverifiable(`${arm.data.source} (arm ${arm.name}'s data) is not here`);
        if (sha256File(at(arm.data.source)) !== arm.data.sha256)
          throw new Failed(
            `arm ${arm.name}'s data ${arm.data.source} hashes to ${sha256File(at(arm.data.source)).slice(0, 12)}…, the record says ${arm.data.sha256.slice(0, 12)}…`,
          );
        if (arm.sft_data) {
          if (!existsSync(at(arm.sft_data.source)))
            throw new Unverifiable(`${arm.sft_data.source} (arm ${arm.name}'s SFT data) is not here`);
          if (sha256File(at(arm.sft_data.source)) !== arm.sft_data.sha256)
            throw new Failed(
              `arm ${arm.name}'s SFT data ${arm.sft_data.source} hashes to ${sha256File(at(arm.sft_data.source)).slice(0, 12)}…, the record says ${arm.sft_data.sha256.slice(0, 12)}…`,
            );
          n++;
        }
        if (arm.data.kind === "sft") continue; // an SFT-only arm: no GRPO batches to rehash
        const list =
          arm.data.kind === "tasks"
            ? readJsonl<TaskRecord>(at(arm.data.source))
            : environmentByName(arm.data.env).data.load(dirname(at(arm.data.source)), "train");
        const again = adaptationRecord(at(arm.run), list, arm.adaptation.source);
        const bad = arm.adaptation.batches.findIndex(
          (b, i) =>
            again.batches[i]?.ids_sha256 !== b.ids_sha256 ||
            JSON.stringify(again.batches[i]?.rows) !== JSON.stringify(b.rows),
        );
        if (
          bad >= 0 ||
          again.batches.length !== arm.adaptation.batches.length ||
          again.sha256 !== arm.adaptation.sha256
        ) {
          throw new Failed(
            `arm ${arm.name}'s adaptation record does not rehash from ${arm.adaptation.source}${bad >= 0 ? ` (step ${arm.adaptation.batches[bad].step} differs)` : ` (${again.batches.length} batches there, ${arm.adaptation.batches.length} recorded)`}`,
          );
        }
        n += 2 + arm.adaptation.batches.length;
        const g = arm.generation_audit;
        if (g) {
          const audit = join(at(g.run), "audit.json");
          if (!existsSync(audit)) throw new Failed(`arm ${arm.name}'s generation audit ${g.run}/audit.json is missing`);
          if (sha256File(audit) !== g.audit_sha256)
            throw new Failed(
              `arm ${arm.name}'s generation audit hashes to ${sha256File(audit).slice(0, 12)}…, the record says ${g.audit_sha256.slice(0, 12)}…`,
            );
          const tasks = join(at(g.run), TASKS_FILE);
          if (sha256File(tasks) !== g.tasks_sha256 || sha256File(tasks) !== g.hashes.tasks_sha256)
            throw new Failed(
              `arm ${arm.name}'s ${g.run}/${TASKS_FILE} does not hash to what its audit and the record say`,
            );
          n += 2;
        }
      }
      const bound = armRuns.length - unbound.length;
      // Runs of an earlier build hold no spec hash: their record still validates, and the line says so.
      return `${n + bound} hashes recomputed from the files${unbound.length ? `; ${unbound.length} of ${armRuns.length} arm runs record no spec hash (written by an earlier build): ${unbound.join(", ")}` : ""}`;
    },
    "no-train-in-eval": () => {
      const evalTexts = new Map<string, string>();
      const evalIds = new Set(items());
      for (const e of episodesOf("base")) evalTexts.set(normalizeText(e.question), e.id);
      const seen = { episodes: 0, sft: 0, tasks: 0 };
      const check = (arm: string, id: string | undefined, question: string, where: string) => {
        const hit = id !== undefined && evalIds.has(id) ? id : evalTexts.get(normalizeText(question));
        if (hit)
          throw new Failed(`arm ${arm} trained on "${question.slice(0, 80)}" (${where}), which is eval item ${hit}`);
      };
      for (const arm of record.arms) {
        if (arm.data.kind !== "sft") {
          const file = runFile(at(arm.run), "episodes");
          if (!existsSync(file))
            throw new Unverifiable(`${arm.run} has no episodes.jsonl: what arm ${arm.name} trained on cannot be read`);
          for (const t of readJsonl<{ question_id?: string; id: string; question: string; step?: number }>(file, {
            tolerateTornTail: true,
          })) {
            seen.episodes++;
            check(arm.name, t.question_id ?? t.id, t.question, `GRPO step ${t.step ?? "?"}`);
          }
        }
        if (arm.data.kind === "tasks") {
          // Generated tasks have ids of their own: only their text can collide with an eval item.
          if (!existsSync(at(arm.data.source)))
            throw new Unverifiable(`${arm.data.source} (arm ${arm.name}'s tasks) is not here`);
          readJsonl<TaskRecord>(at(arm.data.source)).forEach((t, i) => {
            seen.tasks++;
            check(arm.name, undefined, t.problem, `${arm.data.source}:${i + 1}`);
          });
        }
        const sft = [
          arm.sft_data?.source,
          ...(arm === record.arms[0] ? record.init.runs.map((r) => join(r, RUN_FILES.sft)) : []),
        ].filter((f): f is string => Boolean(f) && existsSync(at(f!)));
        for (const f of sft) {
          readJsonl<{ id: string; question: string }>(at(f)).forEach((row, i) => {
            seen.sft++;
            check(f === arm.sft_data?.source ? arm.name : "init", row.id, row.question, `SFT data ${f}:${i + 1}`);
          });
        }
      }
      return `${seen.episodes} GRPO episodes, ${seen.sft} SFT rows and ${seen.tasks} task items of ${record.arms.length} arms checked against ${evalTexts.size} eval items (ids and normalised text)`;
    },
    budget: () => {
      // Every run the experiment wrote (runs/<name>-…) belongs to a phase: none can leave the sum.
      const inPhases = new Set(Object.values(record.phases).flatMap((p) => p.runs.map(slashes)));
      const runsDir = dirname(record.record_dir);
      const names = existsSync(at(runsDir)) ? readdirSync(at(runsDir)) : [];
      // Another experiment in the same runs folder whose name extends this one's ("mini-2") keeps its runs.
      const others = names.filter(
        (n) => n.startsWith(`${record.name}-`) && existsSync(at(join(runsDir, n, EXPERIMENT_FILES.record))),
      );
      const own = names.filter(
        (n) =>
          n.startsWith(`${record.name}-`) &&
          !others.some((o) => n === o || n.startsWith(`${o}-`)) &&
          isRunFolder(at(join(runsDir, n))),
      );
      const left = own.map((n) => slashes(join(runsDir, n))).find((r) => !inPhases.has(r));
      if (left)
        throw new Failed(
          `${left} is a run of this experiment in no phase of the record: its spend ($${ledgerUsd(at(left)).toFixed(4)}) is not counted`,
        );
      let usd = 0;
      for (const p of Object.values(record.phases)) for (const r of p.runs) usd += ledgerUsd(at(r));
      if (!same(usd, record.spend.usd))
        throw new Failed(
          `the runs' ledgers add up to $${usd.toFixed(4)}, the record says $${record.spend.usd.toFixed(4)}`,
        );
      if (record.spend.budget_usd > 0 && usd > record.spend.budget_usd)
        throw new Failed(`spent $${usd.toFixed(4)}, over the budget of $${record.spend.budget_usd.toFixed(2)}`);
      return record.spend.budget_usd > 0
        ? `spent $${usd.toFixed(4)} of the $${record.spend.budget_usd.toFixed(2)} budget`
        : `spent $${usd.toFixed(4)}; the spec set no cap`;
    },
    scores: () => {
      const cols = recomputedScores();
      const recorded = JSON.parse(readFileSync(join(recordDir, record.evaluation.scores_file), "utf8")) as {
        scores: Record<string, number[]>;
      };
      for (const a of arms) {
        const mean = cols[a].reduce((s, x) => s + x, 0) / cols[a].length;
        if (!same(mean, record.scores[a].mean))
          throw new Failed(
            `scores.${a}.mean is ${record.scores[a].mean} in ${EXPERIMENT_FILES.record}, ${mean} recomputed from ${record.scores[a].run}/${RUN_FILES.episodes}`,
          );
        const ci = record.numbers.scores[a]?.ci;
        if (!ci || !same(ci.lo, record.scores[a].ci.lo) || !same(ci.hi, record.scores[a].ci.hi))
          throw new Failed(
            `scores.${a}.ci is [${record.scores[a].ci.lo}, ${record.scores[a].ci.hi}] in ${EXPERIMENT_FILES.record}, numbers.scores.${a}.ci [${ci?.lo}, ${ci?.hi}]`,
          );
        if (!same(mean, record.numbers.scores[a]?.point ?? NaN))
          throw new Failed(
            `numbers.scores.${a}.point is ${record.numbers.scores[a]?.point} in ${EXPERIMENT_FILES.record}, ${mean} recomputed from ${record.scores[a].run}/${RUN_FILES.episodes}`,
          );
        const bad = cols[a].findIndex((x, i) => !same(x, recorded.scores[a]?.[i] ?? NaN));
        if (bad >= 0)
          throw new Failed(
            `${record.evaluation.scores_file}: ${a}'s score of item ${bad + 1} is ${recorded.scores[a]?.[bad]}, its episode says ${cols[a][bad]}`,
          );
      }
      return `${arms.length} × ${items().length} per-item ${record.metric} scores and their means recomputed from the eval episodes`;
    },
    criterion: () => {
      if (!existsSync(specFile))
        throw new Unverifiable(`${EXPERIMENT_FILES.spec} is missing: the criterion cannot be read`);
      const { spec } = readExperimentSpec(specFile);
      const { treatment: t, reference: r } = spec.criterion;
      if (record.criterion_arms?.treatment !== t || record.criterion_arms?.reference !== r)
        throw new Failed(
          `criterion_arms is ${canonicalJson(record.criterion_arms)} in the record, ${EXPERIMENT_FILES.spec} says treatment ${t}, reference ${r}`,
        );
      const numbers = experimentNumbers(recomputedScores(), spec.criterion.treatment, spec.criterion.reference, {
        resamples: record.resamples,
        seed: record.seed,
      });
      const diff = firstDifference(numbers, record.numbers, "numbers");
      if (diff)
        throw new Failed(
          `${diff} (recomputed from the eval episodes with ${record.resamples} resamples, seed ${record.seed})`,
        );
      for (const [i, arm] of record.arms.entries()) {
        const rewards = arm.data.kind === "sft" ? [] : readStepRewards(runFile(at(arm.run), "metrics"));
        const trend = rewards.length ? rewardTrend(rewards) : null;
        const trendDiff = firstDifference(trend, arm.train_reward, `arms[${i}].train_reward`);
        if (trendDiff) throw new Failed(`${trendDiff} from ${join(arm.run, RUN_FILES.metrics)}`);
      }
      const treatment = record.arms.find((a) => a.name === spec.criterion.treatment);
      const rewards = treatment ? readStepRewards(runFile(at(treatment.run), "metrics")) : [];
      const verdict = decideVerdict(numbers, spec, rewards.length ? rewardTrend(rewards) : null);
      if (verdict.verdict !== record.verdict.verdict)
        throw new Failed(
          `the criterion gives "${verdict.verdict}" from the recorded numbers, the record says "${record.verdict.verdict}"`,
        );
      const verdictDiff = firstDifference(verdict, record.verdict, "verdict");
      if (verdictDiff) throw new Failed(`${verdictDiff} (the criterion applied to the recomputed numbers)`);
      // The ablation the record embeds, recomputed from the same eval runs (where they are is not part of it).
      const ablation = ablate(loadAblationInputs(arms.map((a) => at(record.scores[a].run))), {
        resamples: record.resamples,
        seed: record.seed,
        expect: ["policy.checkpoint"],
      });
      const ablationDiff = firstDifference(ablation, record.ablation, "ablation", ABLATION_CIRCUMSTANCES);
      if (ablationDiff) throw new Failed(`${ablationDiff} (ablate rerun on the eval runs)`);
      return `"${verdict.verdict}": ${[...verdict.supported, ...verdict.refuted].map((c) => c.text).join("; ")}`;
    },
  };

  const sweep = () => {
    if (!existsSync(specFile)) throw new Unverifiable(`${EXPERIMENT_FILES.spec} is missing: the sweep cannot be read`);
    const { spec } = readExperimentSpec(specFile);
    if (!spec.sweep) throw new Failed(`the record ranks a sweep, but ${EXPERIMENT_FILES.spec} has none`);
    if (!record.sweep)
      throw new Failed(`${EXPERIMENT_FILES.spec} sweeps ${spec.sweep.arm}, but the record has no sweep section`);
    const runsDir = dirname(record.record_dir);
    const runOf = (...parts: string[]) => slashes(join(runsDir, [record.name, ...parts].join("-")));
    for (const point of spec.sweep.points) {
      const arm = spec.arms.find((a) => a.name === point.name)!;
      const evalRun = runOf("eval", arm.name);
      if (slashes(record.scores[arm.name].run) !== evalRun)
        throw new Failed(
          `scores.${arm.name}.run is ${record.scores[arm.name].run}, but arm ${arm.name}'s evaluation is ${evalRun}`,
        );
      const trainRun = arm.grpo ? runOf(arm.name) : runOf(arm.name, "sft");
      const recorded = record.arms.find((a) => a.name === arm.name)!;
      if (slashes(recorded.run) !== trainRun)
        throw new Failed(`arm ${arm.name}'s run is ${recorded.run} in the record, but the arm trains in ${trainRun}`);
      // The swept values as the arm's training runs recorded them: a run of another arm put in its place shows here.
      for (const [param, value] of Object.entries(point.values)) {
        const p = SWEEP_PARAMS[param];
        const run = p.section === "sft" ? runOf(arm.name, "sft") : runOf(arm.name);
        if (!existsSync(at(run))) throw new Unverifiable(`${run} (arm ${arm.name}'s run) is not here`);
        const m = readJsonFile<Record<string, unknown>>(runFile(at(run), "manifest")) ?? {};
        if (m[p.manifest] !== value)
          throw new Failed(
            `arm ${arm.name} sweeps ${param} = ${value}, but ${join(run, RUN_FILES.manifest)} has ${p.manifest} = ${JSON.stringify(m[p.manifest])}`,
          );
      }
      const m = readJsonFile<{ policy?: { checkpoint?: unknown } }>(runFile(at(evalRun), "manifest"));
      const want = resolveCheckpointPath(at(runsDir), armCheckpointName(record.name, arm), "sampler");
      if (m?.policy?.checkpoint !== want)
        throw new Failed(
          `${evalRun} scored ${JSON.stringify(m?.policy?.checkpoint)}, not arm ${arm.name}'s checkpoint ${want}`,
        );
    }
    const numbers = sweepNumbers(recomputedScores(), spec.sweep, { resamples: record.resamples, seed: record.seed });
    const diff = firstDifference(numbers, record.sweep, "sweep");
    if (diff)
      throw new Failed(
        `${diff} (recomputed from the eval episodes with ${record.resamples} resamples, seed ${record.seed})`,
      );
    return `${numbers.arms.length} arms on the same ${numbers.n} items against ${numbers.baseline}, Holm-adjusted; best: ${numbers.best ?? "none"} (${numbers.best_reason})`;
  };
  const swept = Boolean(record.sweep) || Boolean(spec?.sweep);
  const names: string[] = [...CHECKS, ...(swept ? [SWEEP_CHECK] : [])];
  const all: Record<string, () => string> = { ...checks, [SWEEP_CHECK]: sweep };
  const results: CheckResult[] = names.map((check) => {
    let status: CheckStatus = "passed";
    let reason: string;
    try {
      reason = all[check]();
    } catch (e) {
      if (e instanceof Failed) status = "failed";
      else if (e instanceof Unverifiable) status = "unverifiable";
      else if (e instanceof UserError) status = "unverifiable";
      else throw e;
      reason = (e as Error).message;
    }
    return { check, status, reason };
  });
  const by = (s: CheckStatus) => results.filter((r) => r.status === s).map((r) => r.check);
  return { passed: by("passed"), failed: by("failed"), unverifiable: by("unverifiable"), checks: results };
}

function diffEvaluators(record: ExperimentRecord, m: RunManifest): string {
  const a = record.evaluation.evaluator as unknown as Record<string, unknown>;
  const b = evaluatorFromManifest(m) as unknown as Record<string, unknown>;
  const fields = Object.keys({ ...a, ...b }).filter((k) => canonicalJson(a[k]) !== canonicalJson(b[k]));
  return fields.length ? `differs in ${fields.join(", ")}` : "same fields, other hash";
}

/** Fields of an ablation report that say where and when it ran, not what it found. */
const ABLATION_CIRCUMSTANCES: ReadonlySet<string> = new Set(["created", "dir"]);

/** A record path with forward slashes (phases list them so), to compare with one joined here. */
const slashes = (p: string) => p.split("\\").join("/");

const ledgerUsd = (runDir: string) => readLedger(runDir).reduce((s, e) => s + (Number(e.usd) || 0), 0);

/** The spec in the record folder, or undefined when it is missing or unreadable (the checks that need it say so). */
function readableSpec(specFile: string): ExperimentSpec | undefined {
  if (!existsSync(specFile)) return undefined;
  try {
    return readExperimentSpec(specFile).spec;
  } catch (e) {
    if (e instanceof UserError) return undefined;
    throw e;
  }
}

/** Refuses a record that leaves out an arm its spec names (or adds one it does not): a check over no arms passes nothing. */
function requireSpecArms(file: string, record: ExperimentRecord, spec: ExperimentSpec): void {
  const named = spec.arms.map((a) => a.name);
  const recorded = record.arms.map((a) => a.name);
  if (canonicalJson(recorded) !== canonicalJson(named))
    throw new FileFormatError(
      file,
      undefined,
      `arms are ${JSON.stringify(recorded)}, but ${EXPERIMENT_FILES.spec} names ${JSON.stringify(named)}: a record holds every arm its spec names (rerun agent-lab experiment run)`,
    );
  const scored = Object.keys(record.scores);
  const want = ["base", ...named];
  if (canonicalJson(scored) !== canonicalJson(want))
    throw new FileFormatError(
      file,
      undefined,
      `scores are given for ${JSON.stringify(scored)}, but ${EXPERIMENT_FILES.spec} names ${JSON.stringify(want)}: a record scores base and every arm its spec names (rerun agent-lab experiment run)`,
    );
}

/** The first leaf where two trees differ ("numbers.minus_base.generated.ci.lo 0.1 ≠ 0.2"); keys in `skip` are not compared. */
function firstDifference(
  a: unknown,
  b: unknown,
  path: string,
  skip: ReadonlySet<string> = new Set(),
): string | undefined {
  if (typeof a === "number" && typeof b === "number")
    return same(a, b) ? undefined : `${path} is ${b} in the record, ${a} recomputed`;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object")
    return canonicalJson(a) === canonicalJson(b)
      ? undefined
      : `${path} is ${canonicalJson(b)} in the record, ${canonicalJson(a)} recomputed`;
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (skip.has(k)) continue;
    const d = firstDifference(
      (a as Record<string, unknown>)[k],
      (b as Record<string, unknown>)[k],
      Array.isArray(a) ? `${path}[${k}]` : `${path}.${k}`,
      skip,
    );
    if (d) return d;
  }
  return undefined;
}
