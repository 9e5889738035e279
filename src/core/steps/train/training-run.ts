/**
 * The scaffold both trainers share, so a trainer is only its loop: the run folder opened under its
 * writer lock (new, or a resume whose settings still match — a resume of a run that does not exist
 * is refused), the checkpoints saved so far (a resume continues from the last one, re-registering
 * any the registry missed after a crash, and trims per-step files past it), the training client
 * (from the last state with its optimizer, from an initial state, or a fresh LoRA), save-and-register,
 * the cost ledger and progress.json.
 */
import { isAbsolute, join } from "node:path";
import {
  registerOnce,
  registryPath,
  resolveCheckpointPath,
  type CheckpointEntry,
} from "../../base/checkpoints/registry";
import type { AgentLabConfig } from "../../base/config";
import { CostLedger } from "../../base/ledger";
import { ProgressWriter, type Progress, type ProgressStatus } from "../../base/runs/progress";
import { openRunForWriting, runFile, type FieldChange, type RunLock } from "../../base/runs/run-folder";
import type { TrainingClient } from "../../base/tinker";
import type { TrainTarget } from "./backend";
import { appendRow, keepStepsUpTo, readRunCheckpoints, type RunCheckpoint } from "./run-log";

export interface TrainingRunOptions<M extends { kind: "sft" | "grpo" }> {
  workspaceDir: string;
  config: AgentLabConfig;
  name: string;
  target: TrainTarget;
  resume: boolean;
  /** Start from this state (registry name or tinker://…/weights/…); absent = a fresh LoRA. */
  initState?: string;
  manifest: M;
  /** Manifest keys a resume must not change (what decides what is being trained). */
  mustMatch: readonly (keyof M & string)[];
  /** Per-step JSONL files (rows with `step`) trimmed to the last saved step on resume. */
  stepFiles: readonly string[];
  /** What the registry records as the data a checkpoint saw. */
  dataHash: (c: RunCheckpoint) => string;
  progress: { label: string; planned: number; onUpdate?: (p: Progress) => void };
  signal?: AbortSignal;
  log: (line: string) => void;
}

export class TrainingRun<M extends { kind: "sft" | "grpo" }> {
  readonly runsDir: string;
  readonly runDir: string;
  readonly ledger: CostLedger;
  readonly progress: ProgressWriter;
  /** Checkpoints of this run so far, oldest first (grows as the trainer saves). */
  readonly checkpoints: RunCheckpoint[];
  /** The state path an initial `initState` names, resolved. */
  readonly initStatePath: string | undefined;
  readonly spentBefore: number;
  private readonly registry: string;
  private readonly parent0: string | null;

  private constructor(
    private readonly o: TrainingRunOptions<M>,
    private readonly lock: RunLock,
  ) {
    this.runsDir = inWorkspace(o.workspaceDir, o.config.runsDir);
    this.runDir = join(this.runsDir, o.name);
    this.registry = registryPath(this.runsDir);
    this.initStatePath = o.initState ? resolveCheckpointPath(this.runsDir, o.initState, "state") : undefined;
    this.parent0 = o.initState ?? null;
    this.checkpoints = o.resume ? readRunCheckpoints(this.runDir) : [];
    this.ledger = CostLedger.open(this.runDir, { prices: o.target.prices, budgetUsd: o.config.budgetUsd });
    this.spentBefore = this.ledger.totalUsd;
    // A crash between the run's checkpoint line and the registry's leaves the registry short.
    this.checkpoints.forEach((c, i) =>
      registerOnce(this.registry, this.entryFor(c, i === 0 ? this.parent0 : this.checkpoints[i - 1].name)),
    );
    if (o.resume) {
      const dropped = o.stepFiles.map((f) => keepStepsUpTo(f, this.lastStep));
      if (dropped.some((n) => n > 0))
        o.log(
          `(dropped ${dropped.reduce((a, b) => a + b, 0)} lines after step ${this.lastStep}; those steps are redone)`,
        );
    }
    this.progress = new ProgressWriter(this.runDir, {
      step: o.manifest.kind === "sft" ? "train-sft" : "train-grpo",
      label: o.progress.label,
      unit: "step",
      planned: o.progress.planned,
      done: this.lastStep,
      usd: this.ledger.totalUsd,
      onUpdate: o.progress.onUpdate,
    });
  }

  /** Opens (or resumes) the run: refuses a folder that holds a run, a resume of none, or changed settings. */
  static open<M extends { kind: "sft" | "grpo" }>(o: TrainingRunOptions<M>): TrainingRun<M> {
    const runDir = join(inWorkspace(o.workspaceDir, o.config.runsDir), o.name);
    const { release } = openRunForWriting<M & { resumed?: unknown[] }>({
      runDir,
      resume: o.resume,
      what: ["agent-lab", o.manifest.kind === "sft" ? "train-sft" : "train-grpo", "--name", o.name].join(" "),
      create: o.manifest,
      changes: (stored) =>
        o.mustMatch
          .filter((k) => JSON.stringify(stored[k]) !== JSON.stringify(o.manifest[k]))
          .map((k): FieldChange => ({ field: k, was: stored[k], now: o.manifest[k] })),
      onResume: (stored) => ({
        ...stored,
        resumed: [
          ...(stored.resumed ?? []),
          { at: new Date().toISOString(), command: (o.manifest as Record<string, unknown>).command },
        ],
      }),
    });
    try {
      return new TrainingRun(o, { release });
    } catch (e) {
      release();
      throw e;
    }
  }

  get target(): TrainTarget {
    return this.o.target;
  }

  get last(): RunCheckpoint | undefined {
    return this.checkpoints.at(-1);
  }

  /** Optimizer steps done and saved (0 for a new run). */
  get lastStep(): number {
    return this.last?.batch ?? 0;
  }

  /** The training client: the last state with its optimizer (resume), an initial state, or a fresh LoRA. */
  async createClient(): Promise<TrainingClient> {
    const { service } = this.o.target;
    const last = this.last;
    if (last) {
      this.o.log(
        `resuming ${this.o.name} from ${last.name} (${last.epoch !== undefined ? `epoch ${last.epoch}, ` : ""}step ${last.batch}): ${last.state_path}`,
      );
      return service.createTrainingClientFromState(last.state_path, { withOptimizer: true, signal: this.o.signal });
    }
    if (this.initStatePath) {
      this.o.log(`starting from ${this.initStatePath}`);
      return service.createTrainingClientFromState(this.initStatePath, { withOptimizer: false, signal: this.o.signal });
    }
    return service.createLoraTrainingClient({
      baseModel: this.o.target.baseModel,
      rank: this.o.config.loraRank,
      signal: this.o.signal,
    });
  }

  /** Saves sampler weights and state together, appends the run's line and registers the checkpoint. */
  async save(
    tc: TrainingClient,
    name: string,
    step: number,
    extra: { epoch?: number; final?: boolean } = {},
  ): Promise<RunCheckpoint> {
    const samplerF = tc.saveWeightsForSampler(name);
    const stateF = tc.saveState(`${name}-state`);
    const [sampler, state] = await Promise.all([samplerF.result(), stateF.result()]);
    const c: RunCheckpoint = {
      name,
      batch: step,
      ...(extra.epoch !== undefined ? { epoch: extra.epoch } : {}),
      state_path: state.path,
      sampler_path: sampler.path,
      ...(extra.final ? { final: true } : {}),
    };
    appendRow(runFile(this.runDir, "checkpoints"), c);
    registerOnce(this.registry, this.entryFor(c, this.last?.name ?? this.parent0));
    this.checkpoints.push(c);
    this.o.log(`saved ${name}\n  sampler: ${sampler.path}\n  state:   ${state.path}`);
    return c;
  }

  appendMetrics(row: { step: number }): void {
    // When the step ended: the dashboard's wall-time x axis (a string, so no chart of its own).
    appendRow(runFile(this.runDir, "metrics"), { ...row, time: new Date().toISOString() });
    this.progress.update({ done: row.step, usd: this.ledger.totalUsd });
  }

  get spentUsd(): number {
    return this.ledger.totalUsd - this.spentBefore;
  }

  /** Ends the run's progress with its status, closes the service and releases the folder. */
  close(status: ProgressStatus): void {
    try {
      this.progress.finish(status, { usd: this.ledger.totalUsd });
    } finally {
      this.o.target.service.close();
      this.lock.release();
    }
  }

  private entryFor(c: RunCheckpoint, parent: string | null): CheckpointEntry {
    return {
      name: c.name,
      sampler_path: c.sampler_path,
      state_path: c.state_path,
      base_model: this.o.target.baseModel,
      parent,
      data_hash: this.o.dataHash(c),
      step: c.batch,
      ...(c.epoch !== undefined ? { epoch: c.epoch } : {}),
      run: join(this.o.config.runsDir, this.o.name),
      kind: this.o.manifest.kind,
      created: new Date().toISOString(),
    };
  }
}

const inWorkspace = (ws: string, p: string) => (isAbsolute(p) ? p : join(ws, p));
