/**
 * The project's local Tinker-compatible backend (src/server) for the client tests, driven through
 * its test seam: every request is recorded, answers can be scripted per path with a count, results
 * gated by request kind, samples fixed, and the client config / JWT answers chosen per test.
 * Everything not scripted is the real server: routing, futures, seq_id order, idempotent replays.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLocalBackend, type RunningLocalBackend } from "../../../../../src/server";
import type { ObservedRequest, ScriptedReply } from "../../../../../src/server/test-seam";
import type { SampleBody } from "../../../../../src/server/validate";
import type { SampleResponse } from "../../../../../src/core/base/tinker/wire";

export type { ObservedRequest, ScriptedReply };

export class ScriptedBackend {
  readonly requests: ObservedRequest[] = [];
  /** Merged over the server's own client config. */
  clientConfig: Record<string, unknown> = {};
  /** When set, POST /auth/token answers { jwt: jwt() }. */
  jwt: (() => string) | undefined;
  /** Awaited before an op's result is computed, by kind (see TestSeam.beforeResult). */
  resultGate: (kind: string) => Promise<void> = () => Promise.resolve();
  /** When set, replaces the tiny model's samples. */
  sampleResult: ((body: SampleBody) => SampleResponse) | undefined;

  private running: RunningLocalBackend | undefined;
  private dir = "";
  private scripts: Array<{ path: string; reply: ScriptedReply; times: number }> = [];
  private waiters: Array<{ path: string; resolve: () => void }> = [];

  get url(): string {
    if (!this.running) throw new Error("ScriptedBackend not started");
    return this.running.url;
  }

  get backend(): RunningLocalBackend["backend"] {
    if (!this.running) throw new Error("ScriptedBackend not started");
    return this.running.backend;
  }

  async start(options: { longPollMs?: number } = {}): Promise<string> {
    this.dir = mkdtempSync(join(tmpdir(), "agent-lab-scripted-backend-"));
    this.running = await startLocalBackend({
      dir: this.dir,
      seed: 0,
      longPollMs: options.longPollMs ?? 1_000,
      log: () => undefined,
      testSeam: {
        observe: (r) => this.record(r),
        script: (r) => this.take(r.path),
        beforeResult: (kind) => this.resultGate(kind),
        sample: (body) => this.sampleResult?.(body),
        clientConfig: () => this.clientConfig,
        authToken: () => this.jwt?.(),
      },
    });
    return this.running.url;
  }

  async stop(): Promise<void> {
    await this.running?.close();
    this.running = undefined;
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** The next `times` requests to `path` get `reply` instead of normal handling. */
  inject(path: string, reply: ScriptedReply, times = 1): void {
    this.scripts.push({ path, reply, times });
  }

  /** Forgets what was recorded so far (after a test's setup). */
  clear(): void {
    this.requests.length = 0;
  }

  paths(): string[] {
    return this.requests.map((r) => r.path);
  }

  to(path: string): ObservedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  /** Resolves when a request to `path` has arrived (at once if one already has). */
  waitFor(path: string): Promise<void> {
    if (this.requests.some((r) => r.path === path)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ path, resolve }));
  }

  /** seq_ids of one model's training requests, in arrival order. */
  seqIds(modelId: string): number[] {
    return this.requests.flatMap((r) => {
      if (r.proto?.model_id === modelId) return [r.proto.seq_id];
      if (r.json?.model_id === modelId && typeof r.json.seq_id === "number" && r.path !== "/api/v1/get_info")
        return [r.json.seq_id];
      return [];
    });
  }

  /** Operations of one kind the backend actually ran (a replayed request runs nothing). */
  ran(kind: string): number {
    return this.backend.opLog.filter((op) => op.kind === kind).length;
  }

  private record(r: ObservedRequest): void {
    this.requests.push(r);
    for (const w of this.waiters.filter((x) => x.path === r.path)) w.resolve();
    this.waiters = this.waiters.filter((x) => x.path !== r.path);
  }

  private take(path: string): ScriptedReply | undefined {
    const s = this.scripts.find((x) => x.path === path && x.times > 0);
    if (!s) return undefined;
    s.times--;
    return s.reply;
  }
}

/** A fixed sampler: continues the prompt with last+1, last+2, …, logprob −0.5 each, stopping after a stop token or at max_tokens; prompt logprobs −1 − i/10. */
export function continuePrompt(body: SampleBody): SampleResponse {
  const last = body.prompt[body.prompt.length - 1] ?? 0;
  const sequences = Array.from({ length: body.num_samples }, () => {
    const tokens: number[] = [];
    let reason: "stop" | "length" = "length";
    for (let i = 1; i <= body.max_tokens; i++) {
      tokens.push(last + i);
      if (body.stop_tokens.includes(last + i)) {
        reason = "stop";
        break;
      }
    }
    return { tokens, logprobs: tokens.map(() => -0.5), stop_reason: reason };
  });
  return {
    sequences,
    prompt_logprobs: body.prompt_logprobs ? body.prompt.map((_, i) => (i === 0 ? null : -1 - i / 10)) : null,
    topk_prompt_logprobs: null,
    prompt_cache_hit_tokens: 0,
  };
}
