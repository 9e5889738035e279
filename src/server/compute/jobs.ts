/**
 * The local backend's compute: every model lives here, addressed by a handle, and every operation
 * that touches weights (create, load, clone, forward_backward, optim_step, save, sample) is a job.
 * Jobs are generators that yield between positions or tokens, so the scheduler in worker.ts can
 * interleave them and keep answering messages; this module knows nothing about threads or HTTP.
 */
import { encodeForwardBackwardOutput, encodeSampleResponse } from "../../core/base/tinker/wire/codec";
import type { SampleResponse, TensorData } from "../../core/base/tinker/wire/types";
import { UserInputError } from "../model/errors";
import type { LossName } from "../model/losses";
import { loadModel, saveModel } from "../model/persist";
import { sampleSteps, scorePrompt, type SampleOptions } from "../model/sample";
import { TinyModel, type TinyModelConfig } from "../model/tiny-model";
import { forwardBackwardSteps, optimStep, type AdamParams, type TrainDatum } from "../model/train";

export interface TrainFlags {
  trainUnembed: boolean;
  trainMlp: boolean;
  trainAttn: boolean;
}

export type ComputeJob =
  | { kind: "create"; handle: string; config: Partial<TinyModelConfig>; trainable: boolean }
  /** Loads a checkpoint folder into a handle (replacing what it held); trainFlags keep a training client's choice. */
  | { kind: "load"; handle: string; dir: string; withOptimizer: boolean; forTraining: boolean; trainFlags?: TrainFlags }
  | { kind: "clone"; from: string; handle: string }
  | { kind: "drop"; handle: string }
  | {
      kind: "forward_backward";
      handle: string;
      datums: TrainDatum[];
      lossFn: LossName;
      lossConfig: Record<string, number>;
      backward: boolean;
    }
  | { kind: "optim_step"; handle: string; params: AdamParams }
  | { kind: "save"; handle: string; dir: string; withOptimizer: boolean }
  /** lane: samples only read weights, so each sampler gets its own lane and one busy sampler cannot hold up another sharing its weights. */
  | {
      kind: "sample";
      handle: string;
      lane: string;
      prompt: number[];
      numSamples: number;
      options: Omit<SampleOptions, "decode">;
      promptLogprobs: boolean;
      topk: number;
    };

/** A job's answer: protobuf bytes for sample / forward_backward, a JSON value otherwise. */
export type ComputeResult = { bytes: Uint8Array } | { json: unknown };

/** The lane a job runs in: jobs of one lane run in order, lanes share the thread. */
export function laneOf(job: ComputeJob): string {
  if (job.kind === "sample") return `sample:${job.lane}`;
  return job.kind === "clone" ? job.from : job.handle;
}

export class ComputeEngine {
  private readonly models = new Map<string, TinyModel>();

  get size(): number {
    return this.models.size;
  }

  private model(handle: string): TinyModel {
    const m = this.models.get(handle);
    // The main thread only sends jobs for handles it created; a miss is a bug, not a user error.
    if (!m) throw new Error(`no model for handle ${handle}`);
    return m;
  }

  *run(job: ComputeJob): Generator<void, ComputeResult> {
    switch (job.kind) {
      case "create":
        this.models.set(job.handle, new TinyModel(job.config, true, job.trainable));
        return { json: null };
      case "load": {
        const loaded = loadModel(job.dir, job.withOptimizer, job.forTraining);
        if (!job.trainFlags) {
          this.models.set(job.handle, loaded);
          return { json: null };
        }
        // Keep the training client's choice of trainable parts; weights (and rank) come from the file.
        const model = new TinyModel({ ...loaded.config, ...job.trainFlags }, false, job.forTraining);
        model.adoptState(loaded.tensors, loaded.adamStep);
        this.models.set(job.handle, model);
        return { json: null };
      }
      case "clone":
        this.models.set(job.handle, this.model(job.from).cloneWeights());
        return { json: null };
      case "drop":
        this.models.delete(job.handle);
        return { json: null };
      case "forward_backward": {
        const model = this.model(job.handle);
        const result = yield* forwardBackwardSteps(model, job.datums, job.lossFn, job.lossConfig, job.backward);
        const outputs = result.logprobs.map((lp, i) => {
          const d = job.datums[i];
          const shape = d.k > 1 ? [d.input.length, d.k] : [d.input.length];
          return { logprobs: { data: Array.from(lp), dtype: "float32", shape } as TensorData };
        });
        return {
          bytes: encodeForwardBackwardOutput({
            loss_fn_output_type: "ArrayRecord",
            loss_fn_outputs: outputs,
            metrics: { "loss:sum": result.loss },
          }),
        };
      }
      case "optim_step":
        return { json: { metrics: optimStep(this.model(job.handle), job.params) } };
      case "save":
        return { json: saveModel(this.model(job.handle), job.dir, job.withOptimizer) };
      case "sample": {
        const model = this.model(job.handle);
        const sequences = yield* sampleSteps(model, job.prompt, job.numSamples, job.options);
        const response: SampleResponse = {
          sequences: sequences.map((q) => ({ tokens: q.tokens, logprobs: q.logprobs, stop_reason: q.stopReason })),
          prompt_logprobs: null,
          topk_prompt_logprobs: null,
          prompt_cache_hit_tokens: 0,
        };
        if (job.promptLogprobs || job.topk > 0) {
          const scored = scorePrompt(model, job.prompt, job.topk);
          if (job.promptLogprobs) response.prompt_logprobs = scored.logprobs;
          if (job.topk > 0) response.topk_prompt_logprobs = scored.topk;
        }
        return { bytes: encodeSampleResponse(response) };
      }
    }
  }
}

/** How a job failure crosses the thread boundary: user errors become "user" future errors. */
export interface JobFailure {
  message: string;
  user: boolean;
}

export function jobFailure(e: unknown): JobFailure {
  return { message: e instanceof Error ? e.message : String(e), user: e instanceof UserInputError };
}
