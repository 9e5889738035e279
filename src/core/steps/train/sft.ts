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
import { loadTokenizerSource } from "../../base/chat";
import type { AgentLabConfig } from "../../base/config";
import { UserError } from "../../base/errors";
import { estimateSftUsd } from "../../base/ledger";
import { resolveCheckpointPath } from "../../base/checkpoints/registry";
import { PyRandom } from "../../base/data/python-random";
import type { ProgressStatus } from "../../base/runs/progress";
import { checkRunName, runFile } from "../../base/runs/run-folder";
import type { Datum } from "../../base/tinker/wire";
import { modelInputLength } from "../../base/tinker/wire/builders";
import { openTrainTarget, type TrainBackendOptions } from "./backend";
import { linearLr } from "./schedule";
import { checkSftTokenizer, readSftData, type SftData } from "./sft-data";
import { TrainingRun } from "./training-run";
import type { RunCheckpoint } from "./run-log";
import type { StepContext } from "../specs/step-context";

/** The cookbook's Adam settings (spec §5.4): β1 0.9, β2 0.95, eps 1e-8. */
export const COOKBOOK_ADAM = Object.freeze({ beta1: 0.9, beta2: 0.95, eps: 1e-8 });

export interface TrainSftOptions extends TrainBackendOptions, StepContext {
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
  /**
   * The tokenizer the data was encoded with when it is not the model's (hub id, folder or
   * STAND_IN_TOKENIZER): the data's recorded tokenizer must be exactly this one.
   */
  tokenizer?: string;
  resume?: boolean;
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
export function weightedNll(
  batch: readonly Datum[],
  outputs: ReadonlyArray<Record<string, { data: number[] }>>,
): { loss: number; weight: number } {
  let num = 0;
  let den = 0;
  batch.forEach((d, i) => {
    const w = d.loss_fn_inputs.weights.data;
    const lp = outputs[i]?.logprobs?.data;
    if (!lp || lp.length !== w.length)
      throw new Error(`forward_backward returned ${lp?.length ?? "no"} logprobs for ${w.length} targets`);
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
  const data = readSftData(inWorkspace(o.workspaceDir, o.data));
  if (resolve(data.file, "..") === resolve(runDir)) {
    throw new UserError(
      `--name ${o.name} is the folder of the SFT data itself; give the training run another --name (e.g. ${o.name}-train)`,
    );
  }

  // Prices (and an unpriced model's refusal) before anything is sent or written.
  const target = openTrainTarget(o.config, o);
  // Loaded only for its name: the data's ids are checked against it, and the manifest records it.
  const givenTokenizer = o.tokenizer ? (await loadTokenizerSource(o.tokenizer)).name : undefined;
  checkSftTokenizer(data, target.backend, target.baseModel, givenTokenizer);
  const estimateUsd = estimateSftUsd(target.prices, data.tokensPerEpoch, o.epochs);
  if (data.lineageWarning) log(`warning: ${data.lineageWarning}`);
  log(
    `${data.datums.length} examples, ${data.tokensPerEpoch.toLocaleString("en-US")} tokens/epoch, ≈ $${estimateUsd.toFixed(2)} to train`,
  );

  const initState = o.initState ? resolveCheckpointPath(runsDir, o.initState, "state") : undefined;
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
    tokenizer: givenTokenizer ?? data.tokenizer ?? null,
    data: {
      path: relative(o.workspaceDir, data.file) || data.file,
      hash: data.hash,
      lineage_manifest: existsSync(runFile(dirname(data.file), "manifest"))
        ? relative(o.workspaceDir, runFile(dirname(data.file), "manifest"))
        : null,
      examples: data.datums.length,
      tokens_per_epoch: data.tokensPerEpoch,
    },
    parent: o.initState ?? null,
    init_state: initState ?? null,
    steps_per_epoch: stepsPerEpoch,
    total_steps: totalSteps,
    estimate_usd: estimateUsd,
    command: o.command,
    created: new Date().toISOString(),
  };
  const run = TrainingRun.open({
    workspaceDir: o.workspaceDir,
    config: o.config,
    name: o.name,
    target,
    resume: Boolean(o.resume),
    initState: o.initState,
    manifest,
    mustMatch: ["kind", "base_model", "backend", "lora_rank", "lr", "batch", "epochs", "seed", "data", "init_state"],
    stepFiles: [runFile(runDir, "metrics")],
    dataHash: () => data.hash,
    progress: { label: "SFT", planned: totalSteps, onUpdate: o.onProgress },
    signal: o.signal,
    log,
  });
  let status: ProgressStatus = "failed";
  try {
    const result = await trainLoop(o, run, data, totalSteps, estimateUsd, log);
    status = result.status;
    return result;
  } finally {
    run.close(status);
  }
}

async function trainLoop<M extends { kind: "sft" }>(
  o: TrainSftOptions,
  run: TrainingRun<M>,
  data: SftData,
  totalSteps: number,
  estimateUsd: number,
  log: (line: string) => void,
): Promise<TrainSftResult> {
  const { runDir, ledger } = run;
  const saved = [...run.checkpoints];
  const last = run.last;
  // Refuse before the first token is paid for when the whole job cannot fit under the cap.
  ledger.ensureCanSpend(estimateUsd * ((o.epochs - (last?.epoch ?? 0)) / o.epochs), "the rest of this SFT run");
  if (last?.epoch === o.epochs) {
    log(`${runDir} is already complete (${o.epochs} epochs); nothing to do`);
    return { runDir, status: "done", steps: last.batch, totalSteps, checkpoints: saved, estimateUsd, spentUsd: 0 };
  }
  const tc = await run.createClient();
  const order = [...data.datums.keys()];
  const rng = new PyRandom(o.seed ?? 0);
  const firstEpoch = (last?.epoch ?? 0) + 1;
  // Replay the shuffles of finished epochs so a resumed epoch sees the order it would have.
  for (let e = 1; e < firstEpoch; e++) rng.shuffle(order);
  let step = run.lastStep;

  for (let epoch = firstEpoch; epoch <= o.epochs; epoch++) {
    rng.shuffle(order);
    for (let i = 0; i < order.length; i += o.batch) {
      if (o.signal?.aborted) {
        log(`stopped before step ${step + 1}; resume from ${run.last?.name ?? "the start"} with --resume`);
        return {
          runDir,
          status: "interrupted",
          steps: step,
          totalSteps,
          checkpoints: run.checkpoints,
          estimateUsd,
          spentUsd: run.spentUsd,
        };
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
      run.appendMetrics(row);
      if (step % 5 === 0 || step === totalSteps || step === 1) {
        log(`epoch ${epoch}  step ${step}/${totalSteps}  loss ${loss.toFixed(4)}  lr ${lr.toExponential(2)}`);
      }
    }
    await run.save(tc, `${o.name}-e${epoch}`, step, { epoch, final: epoch === o.epochs });
  }
  log(`spent $${run.spentUsd.toFixed(2)} (estimate was $${estimateUsd.toFixed(2)})`);
  return {
    runDir,
    status: "done",
    steps: step,
    totalSteps,
    checkpoints: run.checkpoints,
    estimateUsd,
    spentUsd: run.spentUsd,
  };
}
