/**
 * Training client for one LoRA model. Every call gets the next seq_id at call time (the server
 * runs a model's ops strictly in seq_id order, spec §1.6), is sent at once, and returns a future;
 * so `forwardBackward(...)` then `optimStep(...)` are both on the wire before either is awaited.
 */
import { submitAndPoll, type TinkerContext } from "./context";
import { TinkerFuture, toForwardBackwardOutput, toJson } from "./futures";
import { chunkData, mergeForwardBackwardOutputs } from "./chunking";
import { SamplingClient, type CallOptions } from "./sampling";
import {
  ADAM_DEFAULTS,
  encodeForwardBackwardRequest,
  LOSS_FNS,
  type AdamParams,
  type Datum,
  type ForwardBackwardOutput,
  type GetInfoResponse,
  type LoadWeightsResponse,
  type LossFn,
  type OptimStepResponse,
  type SaveWeightsForSamplerResponse,
  type SaveWeightsResponse,
  type TensorData,
} from "./wire";

export interface ForwardBackwardResult {
  /** The output type name after its last ':' (as the SDK exposes it). */
  lossFnOutputType: string;
  /** One map per input datum, in order; `logprobs` is the learner's logprob of each target token. */
  outputs: Array<Record<string, TensorData>>;
  /** Summed/averaged across chunks by suffix, e.g. "loss:sum". */
  metrics: Record<string, number>;
}

export interface SaveOptions extends CallOptions {
  ttlSeconds?: number;
}

export class TrainingClient {
  private seqId: number;

  constructor(
    private readonly ctx: TinkerContext,
    readonly modelId: string,
    readonly baseModel: string,
    /** The next op's seq_id: 1 after create_model (which is implicitly 0). */
    firstSeqId = 1,
  ) {
    this.seqId = firstSeqId;
  }

  private takeSeqId(): number {
    return this.seqId++;
  }

  getInfo(options: CallOptions = {}): Promise<GetInfoResponse> {
    return this.ctx.http
      .request({
        method: "POST",
        path: "/api/v1/get_info",
        json: { model_id: this.modelId, type: "get_info" },
        signal: options.signal,
      })
      .then((r) => r.json<GetInfoResponse>());
  }

  forwardBackward(
    data: readonly Datum[],
    lossFn: LossFn,
    lossFnConfig?: Record<string, number>,
    options: CallOptions = {},
  ): TinkerFuture<ForwardBackwardResult> {
    return this.submitForwardBackward(data, lossFn, lossFnConfig, false, options);
  }

  /** Logprobs (and loss) without gradients: the same endpoint with forward_only. */
  forward(
    data: readonly Datum[],
    lossFn: LossFn = "cross_entropy",
    lossFnConfig?: Record<string, number>,
    options: CallOptions = {},
  ): TinkerFuture<ForwardBackwardResult> {
    return this.submitForwardBackward(data, lossFn, lossFnConfig, true, options);
  }

  private submitForwardBackward(
    data: readonly Datum[],
    lossFn: LossFn,
    lossFnConfig: Record<string, number> | undefined,
    forwardOnly: boolean,
    options: CallOptions,
  ): TinkerFuture<ForwardBackwardResult> {
    if (!LOSS_FNS.includes(lossFn))
      throw new Error(`unknown loss function "${lossFn}" (known: ${LOSS_FNS.join(", ")})`);
    if (data.length === 0) throw new Error("forward_backward needs at least one datum");
    const config = this.ctx.config;
    const chunks = chunkData(data, config.fwdbwd_max_chunk_len, config.fwdbwd_max_chunk_bytes_count);
    // seq_ids are taken now, in call order, so later calls queue behind this one on the server.
    const seqIds = chunks.map(() => this.takeSeqId());
    const send = (i: number): Promise<ForwardBackwardOutput> =>
      submitAndPoll(this.ctx.http, {
        path: "/api/v1/forward_backward",
        proto: encodeForwardBackwardRequest({
          model_id: this.modelId,
          seq_id: seqIds[i],
          data: chunks[i],
          loss_fn: lossFn,
          loss_fn_config: lossFnConfig,
          forward_only: forwardOnly,
        }),
        requestType: forwardOnly ? "Forward" : "ForwardBackward",
        expectProto: true,
        signal: options.signal,
      }).then(toForwardBackwardOutput);

    const work = async (): Promise<ForwardBackwardResult> => {
      let results: ForwardBackwardOutput[];
      if (config.parallel_fwdbwd_chunks && chunks.length > 1) {
        // The first chunk goes last: the server holds later chunks until it arrives (spec §1.6).
        const pending: Array<Promise<ForwardBackwardOutput>> = new Array(chunks.length);
        for (let i = chunks.length - 1; i >= 0; i--) pending[i] = send(i);
        results = await Promise.all(pending);
      } else {
        results = [];
        for (let i = 0; i < chunks.length; i++) results.push(await send(i));
      }
      const merged = mergeForwardBackwardOutputs(results.map((output, i) => ({ output, datums: chunks[i].length })));
      if (merged.loss_fn_outputs.length !== data.length) {
        throw new Error(`forward_backward returned ${merged.loss_fn_outputs.length} outputs for ${data.length} datums`);
      }
      const type = merged.loss_fn_output_type;
      return {
        lossFnOutputType: type.slice(type.lastIndexOf(":") + 1),
        outputs: merged.loss_fn_outputs,
        metrics: merged.metrics,
      };
    };
    return new TinkerFuture(work());
  }

  /** One Adam step over the gradients accumulated since the last step; unset params take the SDK defaults. */
  optimStep(
    adam: Partial<AdamParams> = {},
    options: CallOptions = {},
  ): TinkerFuture<{ metrics: Record<string, number> }> {
    const body = {
      adam_params: { ...ADAM_DEFAULTS, ...adam },
      model_id: this.modelId,
      seq_id: this.takeSeqId(),
      type: "optim_step",
    };
    return new TinkerFuture(
      submitAndPoll(this.ctx.http, {
        path: "/api/v1/optim_step",
        json: body,
        requestType: "OptimStep",
        expectProto: false,
        signal: options.signal,
      }).then((r) => ({ metrics: toJson<OptimStepResponse>(r, "optim_step").metrics ?? {} })),
    );
  }

  /** Weights and optimizer state, resumable with createTrainingClientFromState → tinker://…/weights/<name>. */
  saveState(name: string, options: SaveOptions & { overwrite?: boolean } = {}): TinkerFuture<{ path: string }> {
    const body = {
      model_id: this.modelId,
      path: name,
      seq_id: this.takeSeqId(),
      ttl_seconds: options.ttlSeconds,
      overwrite: options.overwrite ?? false,
      type: "save_weights",
    };
    return new TinkerFuture(
      submitAndPoll(this.ctx.http, {
        path: "/api/v1/save_weights",
        json: body,
        requestType: "SaveWeights",
        expectProto: false,
        signal: options.signal,
      }).then((r) => ({ path: toJson<SaveWeightsResponse>(r, "save_weights").path })),
    );
  }

  /** A persistent sampler checkpoint → tinker://…/sampler_weights/<name>. */
  saveWeightsForSampler(name: string, options: SaveOptions = {}): TinkerFuture<{ path: string }> {
    const body = {
      model_id: this.modelId,
      path: name,
      seq_id: this.takeSeqId(),
      ttl_seconds: options.ttlSeconds,
      type: "save_weights_for_sampler",
    };
    return new TinkerFuture(
      this.postSaveForSampler(body, options.signal).then((r) => {
        if (!r.path) throw new Error("save_weights_for_sampler returned no path");
        return { path: r.path };
      }),
    );
  }

  /** Current weights as an ephemeral sampler: a fresh SamplingClient (a stale one samples old weights). */
  saveWeightsAndGetSamplingClient(options: CallOptions = {}): TinkerFuture<SamplingClient> {
    const body = {
      model_id: this.modelId,
      sampling_session_seq_id: this.ctx.nextSamplingSessionSeqId(),
      seq_id: this.takeSeqId(),
      type: "save_weights_for_sampler",
    };
    return new TinkerFuture(
      this.postSaveForSampler(body, options.signal).then((r) => {
        if (!r.sampling_session_id) throw new Error("save_weights_for_sampler returned no sampling_session_id");
        return new SamplingClient(this.ctx, r.sampling_session_id, { baseModel: this.baseModel });
      }),
    );
  }

  /** One endpoint serves both: a named sampler checkpoint (path) or an ephemeral sampling session. */
  private postSaveForSampler(
    body: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<SaveWeightsForSamplerResponse> {
    return submitAndPoll(this.ctx.http, {
      path: "/api/v1/save_weights_for_sampler",
      json: body,
      requestType: "SaveWeightsForSampler",
      expectProto: false,
      signal,
    }).then((r) => toJson<SaveWeightsForSamplerResponse>(r, "save_weights_for_sampler"));
  }

  /** Loads weights (and, with `optimizer`, Adam state) from a tinker://…/weights/<name> path. */
  loadState(path: string, options: CallOptions & { optimizer?: boolean } = {}): TinkerFuture<LoadWeightsResponse> {
    const body = {
      model_id: this.modelId,
      seq_id: this.takeSeqId(),
      path,
      optimizer: options.optimizer ?? false,
      type: "load_weights",
    };
    return new TinkerFuture(
      submitAndPoll(this.ctx.http, {
        path: "/api/v1/load_weights",
        json: body,
        requestType: "LoadWeights",
        expectProto: false,
        signal: options.signal,
      }).then((r) => toJson<LoadWeightsResponse>(r, "load_weights")),
    );
  }

  loadStateWithOptimizer(path: string, options: CallOptions = {}): TinkerFuture<LoadWeightsResponse> {
    return this.loadState(path, { ...options, optimizer: true });
  }

  /** A sampler over a saved sampler checkpoint of this (or any) run. */
  createSamplingClient(modelPath: string, options: CallOptions = {}): Promise<SamplingClient> {
    return this.ctx.service.createSamplingClient({ modelPath, signal: options.signal });
  }
}
