/**
 * `agent-lab train-sft` as a core function (recipe Step 3.3): LoRA SFT on the model's own correct
 * traces, loss only on the tokens it wrote.
 *
 * Each step submits forward_backward and optim_step back to back and only then awaits them, so the
 * service can pipeline the two. The learning rate decays linearly to 0 over all steps. After each
 * epoch a sampler (for eval) and a state (for GRPO or a resume) are saved, appended to the run's
 * checkpoints.jsonl and registered in runs/checkpoints.jsonl as `<name>-e<epoch>`.
 *
 * Resume is per epoch: `resume: true` reloads the last saved state with its optimizer and redoes the
 * epoch that was in flight (its metrics lines are replaced, the shuffle order is the same).
 */
import { existsSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import type { AgentLabConfig } from "../config";
import { UserError } from "../errors";
import { CostLedger, estimateSftUsd } from "../ledger";
import { registryPath, registerOnce, resolveCheckpointPath, type CheckpointEntry } from "../checkpoints/registry";
import { PyRandom } from "../data/python-random";
import type { TrainingClient } from "../tinker";
import type { Datum } from "../tinker/wire";
import { modelInputLength } from "../tinker/wire/builders";
import { openTrainTarget, type TrainBackendOptions } from "./backend";
import { linearLr } from "./schedule";
import { checkSftTokenizer, readSftData } from "./sft-data";
import {
  appendRow,
  checkRunName,
  keepStepsUpTo,
  METRICS_FILE,
  readRunCheckpoints,
  refuseExistingRun,
  RUN_CHECKPOINTS_FILE,
  writeOrCheckManifest,
  type RunCheckpoint,
} from "./run-log";

/** The cookbook's Adam settings (spec §5.4): β1 0.9, β2 0.95, eps 1e-8. */
export const COOKBOOK_ADAM = Object.freeze({ beta1: 0.9, beta2: 0.95, eps: 1e-8 });

export interface TrainSftOptions extends TrainBackendOptions {
  workspaceDir: string;
  config: AgentLabConfig;
  /** Run folder and checkpoint prefix (default "sft" in the CLI). */
  name: string;
  /** sft.jsonl, or the sft-data run folder holding it. */
  data: string;
  epochs: number;
  batch: number;
  /** Peak learning rate; decays linearly to 0. */
  lr: number;
  /** Shuffle seed (the recipe's random.Random(0)). */
  seed?: number;
  /** Continue from a state (registry name or tinker://…/weights/…) instead of the base model. */
  initState?: string;
  resume?: boolean;
  /** argv as typed, for the manifest. */
  command: string[];
  signal?: AbortSignal;
  log?: (line: string) => void;
}

export interface SftMetrics {
  step: number;
  epoch: number;
  loss: number;
  lr: number;
  /** Model-input tokens of the batch. */
  tokens: number;
  /** Tokens with weight (the ones the loss is over). */
  loss_tokens: number;
  /** Run total so far (USD). */
  usd: number;
}

export interface TrainSftResult {
  runDir: string;
  status: "done" | "interrupted";
  steps: number;
  totalSteps: number;
  checkpoints: RunCheckpoint[];
  estimateUsd: number;
  spentUsd: number;
}

/** −Σ w·logprob / Σ w over the batch, from forward_backward's per-datum logprobs. */
export function weightedNll(batch: readonly Datum[], outputs: ReadonlyArray<Record<string, { data: number[] }>>): { loss: number; weight: number } {
  let num = 0;
  let den = 0;
  batch.forEach((d, i) => {
    const w = d.loss_fn_inputs.weights.data;
    const lp = outputs[i]?.logprobs?.data;
    if (!lp || lp.length !== w.length) throw new Error(`forward_backward returned ${lp?.length ?? "no"} logprobs for ${w.length} targets`);
    for (let t = 0; t < w.length; t++) {
      num += w[t] * lp[t];
      den += w[t];
    }
  });
  return { loss: den > 0 ? -num / den : 0, weight: den };
}

const inWorkspace = (ws: string, p: string) => (isAbsolute(p) ? p : join(ws, p));

export async function trainSft(o: TrainSftOptions): Promise<TrainSftResult> {
  const log = o.log ?? (() => {});
  checkRunName(o.name);
  if (!(Number.isInteger(o.epochs) && o.epochs >= 1)) throw new UserError("--epochs must be an integer ≥ 1");
  if (!(Number.isInteger(o.batch) && o.batch >= 1)) throw new UserError("--batch must be an integer ≥ 1");
  if (!(o.lr > 0)) throw new UserError("--lr must be > 0");
  const runsDir = inWorkspace(o.workspaceDir, o.config.runsDir);
  const runDir = join(runsDir, o.name);
  const runLabel = join(o.config.runsDir, o.name);
  const data = readSftData(inWorkspace(o.workspaceDir, o.data));
  if (resolve(data.file, "..") === resolve(runDir)) {
    throw new UserError(`--name ${o.name} is the folder of the SFT data itself; give the training run another --name (e.g. ${o.name}-train)`);
  }

  // Prices (and an unpriced model's refusal) before anything is sent or written.
  const target = openTrainTarget(o.config, o);
  checkSftTokenizer(data, target.backend, target.baseModel);
  const estimateUsd = estimateSftUsd(target.prices, data.tokensPerEpoch, o.epochs);
  if (data.lineageWarning) log(`warning: ${data.lineageWarning}`);
  log(`${data.datums.length} examples, ${data.tokensPerEpoch.toLocaleString("en-US")} tokens/epoch, ≈ $${estimateUsd.toFixed(2)} to train`);

  const saved = o.resume ? readRunCheckpoints(runDir) : [];
  if (!o.resume) refuseExistingRun(runDir);
  const last = saved.at(-1);
  const initState = o.initState ? resolveCheckpointPath(runsDir, o.initState, "state") : undefined;
  const parent0 = o.initState ?? null;

  const stepsPerEpoch = Math.ceil(data.datums.length / o.batch);
  const totalSteps = stepsPerEpoch * o.epochs;
  const manifest = {
    kind: "sft" as const,
    base_model: target.baseModel,
    backend: target.backend,
    // A state brings its own rank; the setting applies only to a fresh LoRA.
    lora_rank: initState ? null : o.config.loraRank,
    lr: o.lr,
    lr_schedule: "linear" as const,
    adam: COOKBOOK_ADAM,
    batch: o.batch,
    epochs: o.epochs,
    seed: o.seed ?? 0,
    loss_fn: "cross_entropy",
    data: { path: relative(o.workspaceDir, data.file) || data.file, hash: data.hash, lineage_manifest: existsSync(join(dirname(data.file), "manifest.json")) ? relative(o.workspaceDir, join(dirname(data.file), "manifest.json")) : null, examples: data.datums.length, tokens_per_epoch: data.tokensPerEpoch },
    parent: parent0,
    init_state: initState ?? null,
    steps_per_epoch: stepsPerEpoch,
    total_steps: totalSteps,
    estimate_usd: estimateUsd,
    command: o.command,
    created: new Date().toISOString(),
  };
  const ledger = CostLedger.open(runDir, { prices: target.prices, budgetUsd: o.config.budgetUsd });
  writeOrCheckManifest(runDir, manifest, Boolean(o.resume), ["kind", "base_model", "backend", "lora_rank", "lr", "batch", "epochs", "seed", "data", "init_state"]);
  // Refuse before the first token is paid for when the whole job cannot fit under the cap.
  ledger.ensureCanSpend(estimateUsd * ((o.epochs - (last?.epoch ?? 0)) / o.epochs), "the rest of this SFT run");

  const registry = registryPath(runsDir);
  if (last?.epoch === o.epochs) {
    log(`${runDir} is already complete (${o.epochs} epochs); nothing to do`);
    reRegister(saved);
    target.service.close();
    return { runDir, status: "done", steps: last.batch, totalSteps, checkpoints: saved, estimateUsd, spentUsd: 0 };
  }

  function entryFor(c: RunCheckpoint, parent: string | null): CheckpointEntry {
    return {
      name: c.name,
      sampler_path: c.sampler_path,
      state_path: c.state_path,
      base_model: target.baseModel,
      parent,
      data_hash: data.hash,
      step: c.batch,
      epoch: c.epoch,
      run: runLabel,
      kind: "sft",
      created: new Date().toISOString(),
    };
  }
  /** A crash between the run's line and the registry's leaves the registry short: fill it in, once. */
  function reRegister(cs: readonly RunCheckpoint[]): void {
    cs.forEach((c, i) => registerOnce(registry, entryFor(c, i === 0 ? parent0 : cs[i - 1].name)));
  }

  let tc: TrainingClient;
  const spentBefore = ledger.totalUsd;
  if (o.resume) {
    // Steps after the last saved state are redone from it: their old lines go.
    const dropped = keepStepsUpTo(join(runDir, METRICS_FILE), last?.batch ?? 0);
    if (dropped) log(`(${dropped} metrics lines of the unfinished epoch dropped; that epoch is redone)`);
  }
  try {
    if (last) {
      log(`resuming ${o.name} from ${last.name} (epoch ${last.epoch}, step ${last.batch}): ${last.state_path}`);
      reRegister(saved);
      tc = await target.service.createTrainingClientFromState(last.state_path, { withOptimizer: true, signal: o.signal });
    } else if (initState) {
      tc = await target.service.createTrainingClientFromState(initState, { withOptimizer: false, signal: o.signal });
    } else {
      tc = await target.service.createLoraTrainingClient({ baseModel: target.baseModel, rank: o.config.loraRank, signal: o.signal });
    }

    const order = [...data.datums.keys()];
    const rng = new PyRandom(o.seed ?? 0);
    const firstEpoch = (last?.epoch ?? 0) + 1;
    // Replay the shuffles of finished epochs so a resumed epoch sees the order it would have.
    for (let e = 1; e < firstEpoch; e++) rng.shuffle(order);
    let step = last?.batch ?? 0;
    const checkpoints = [...saved];

    for (let epoch = firstEpoch; epoch <= o.epochs; epoch++) {
      rng.shuffle(order);
      for (let i = 0; i < order.length; i += o.batch) {
        if (o.signal?.aborted) {
          log(`stopped before step ${step + 1}; resume from ${checkpoints.at(-1)?.name ?? "the start"} with --resume`);
          return { runDir, status: "interrupted", steps: step, totalSteps, checkpoints, estimateUsd, spentUsd: ledger.totalUsd - spentBefore };
        }
        const batch = order.slice(i, i + o.batch).map((k) => data.datums[k]);
        const tokens = batch.reduce((s, d) => s + modelInputLength(d.model_input), 0);
        ledger.ensureCanSpend(ledger.costOf({ trained: tokens }), `step ${step + 1}`);
        const lr = linearLr(o.lr, step, totalSteps);
        // Both on the wire before either is awaited: the service pipelines them.
        const fwd = tc.forwardBackward(batch, "cross_entropy");
        const opt = tc.optimStep({ learning_rate: lr, ...COOKBOOK_ADAM });
        const result = await fwd.result();
        await opt.result();
        step++;
        const { loss, weight } = weightedNll(batch, result.outputs);
        ledger.record({ kind: "train", trained: tokens, label: `step ${step}` });
        const row: SftMetrics = { step, epoch, loss, lr, tokens, loss_tokens: weight, usd: ledger.totalUsd };
        appendRow(join(runDir, METRICS_FILE), row);
        if (step % 5 === 0 || step === totalSteps || step === 1) {
          log(`epoch ${epoch}  step ${step}/${totalSteps}  loss ${loss.toFixed(4)}  lr ${lr.toExponential(2)}`);
        }
      }

      const name = `${o.name}-e${epoch}`;
      const samplerF = tc.saveWeightsForSampler(name);
      const stateF = tc.saveState(`${name}-state`);
      const [sampler, state] = await Promise.all([samplerF.result(), stateF.result()]);
      const c: RunCheckpoint = { name, batch: step, epoch, state_path: state.path, sampler_path: sampler.path, ...(epoch === o.epochs ? { final: true } : {}) };
      appendRow(join(runDir, RUN_CHECKPOINTS_FILE), c);
      registerOnce(registry, entryFor(c, checkpoints.at(-1)?.name ?? parent0));
      checkpoints.push(c);
      log(`saved ${name}\n  sampler: ${sampler.path}\n  state:   ${state.path}`);
    }
    const spentUsd = ledger.totalUsd - spentBefore;
    log(`spent $${spentUsd.toFixed(2)} (estimate was $${estimateUsd.toFixed(2)})`);
    return { runDir, status: "done", steps: step, totalSteps, checkpoints, estimateUsd, spentUsd };
  } finally {
    target.service.close();
  }
}
