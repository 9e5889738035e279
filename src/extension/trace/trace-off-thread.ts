/**
 * The extension host's side of the trace worker (trace-decoding.ts says what it does and why): one
 * worker per extension host, shared by every view that decodes episodes (traces, the Runs tree's
 * failure labels, Compare's pair view and labels, the dashboard's sample episodes), started by the
 * first request (the Runs tree's warm-up or a trace) and holding the tokenizers it loaded. A crashed worker
 * fails what it was answering; the next request starts another, which loads again.
 */
import type { EpisodeRecord } from "../../core/base/runs/run-files";
import { RequestWorker } from "../../core/base/util/request-worker";
import { requireWorkerScript } from "../../core/base/util/worker-thread";
import type { DriftSettings, RunDriftCounts } from "../../core/views/trace/drift";
import type { FailuresRequest } from "../../core/views/failures/failures-off-thread";
import type { GroupRecord } from "../../core/views/trace/dashboard-view";
import type { RunViewSpec } from "../../core/views/trace/run-view";
import type { TraceDecodeAnswers, TraceDecodeRequest } from "./trace-decoding";

const WHAT = "the trace viewer's worker";

type Kind = TraceDecodeRequest["kind"];

class TraceDecoder {
  private worker = this.newWorker();
  /** Tokenizers the worker has loaded, by the manifest's name: a trace of one decodes in its first episode message. */
  private readonly loaded = new Set<string>();

  private newWorker() {
    return new RequestWorker<TraceDecodeRequest, TraceDecodeAnswers[Kind]>(
      () => requireWorkerScript(__dirname, ["trace-worker.js", "trace-worker.ts"], WHAT),
      WHAT,
      { unrefWhenIdle: true }, // idle between traces for the host's whole life
    );
  }

  private ask<K extends Kind>(req: Extract<TraceDecodeRequest, { kind: K }>): Promise<TraceDecodeAnswers[K]> {
    return this.worker.request(req) as Promise<TraceDecodeAnswers[K]>;
  }

  isLoaded(tokenizer: string): boolean {
    return this.loaded.has(tokenizer);
  }

  /** Loads (and warms) the tokenizer in the worker; resolves to its problem, undefined when it loaded. Never rejects. */
  async load(tokenizer: string): Promise<string | undefined> {
    if (this.loaded.has(tokenizer)) return undefined;
    let problem: string | undefined;
    try {
      problem = await this.ask({ kind: "load", tokenizer });
    } catch (e) {
      problem = `cannot load tokenizer "${tokenizer}": ${(e as Error).message}`;
    }
    if (problem === undefined) this.loaded.add(tokenizer);
    return problem;
  }

  episode(o: {
    tokenizer: string | null;
    problem?: string;
    manifest: unknown;
    record: EpisodeRecord;
    view: RunViewSpec;
  }): Promise<TraceDecodeAnswers["episode"]> {
    return this.ask({ kind: "episode", ...o });
  }

  results(tokenizer: string, records: EpisodeRecord[], gold: boolean): Promise<TraceDecodeAnswers["results"]> {
    return this.ask({ kind: "results", tokenizer, records, gold });
  }

  drift(tokenizer: string, record: EpisodeRecord, settings: DriftSettings): Promise<TraceDecodeAnswers["drift"]> {
    return this.ask({ kind: "drift", tokenizer, record, settings });
  }

  countDrift(
    tokenizer: string,
    records: EpisodeRecord[],
    settings: DriftSettings,
    counts: RunDriftCounts,
  ): Promise<RunDriftCounts> {
    return this.ask({ kind: "countDrift", tokenizer, records, settings, counts });
  }

  runFailures(runDir: string, dataDir: string | undefined): Promise<TraceDecodeAnswers["runFailures"]> {
    return this.ask({ kind: "runFailures", runDir, dataDir });
  }

  compareFailures(req: FailuresRequest): Promise<TraceDecodeAnswers["compareFailures"]> {
    return this.ask({ kind: "compareFailures", ...req });
  }

  pair(dirs: [string, string], questionId: string, names: [string, string]): Promise<TraceDecodeAnswers["pair"]> {
    return this.ask({ kind: "pair", dirs, questionId, names });
  }

  group(runDir: string, group: GroupRecord): Promise<TraceDecodeAnswers["group"]> {
    return this.ask({ kind: "group", runDir, group });
  }

  /** Stops the worker and forgets what it loaded: the next trace is a window's first (tests). */
  restart(): void {
    this.worker.dispose();
    this.worker = this.newWorker();
    this.loaded.clear();
  }
}

/** The extension host's trace worker. */
export const traceDecoder = new TraceDecoder();
