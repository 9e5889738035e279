/**
 * Checkpoints and training-run records on disk, so `tinker://` paths keep working after the local
 * backend restarts. Layout under the backend's folder:
 *
 *   runs/<run id>/run.json                       the training run (base model, LoRA config, times)
 *   runs/<run id>/weights/<name>/                training state: model.json, weights.bin, optimizer.bin, checkpoint.json
 *   runs/<run id>/sampler_weights/<name>/        sampler export:  model.json, weights.bin, checkpoint.json
 *
 * Run ids and names are URI-encoded on disk (run ids contain ':').
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Checkpoint, LoraConfig, TrainingRun } from "../core/base/tinker/wire/types";
import { randomUUID } from "node:crypto";
import { createFileExclusive, writeFileAtomic } from "../core/base/util/atomic-write";

export type CheckpointKind = "weights" | "sampler_weights";

export interface RunRecord {
  training_run_id: string;
  base_model: string;
  lora_config: LoraConfig;
  session_id: string;
  created: string;
  last_request_time: string;
  user_metadata?: Record<string, string>;
}

export interface TinkerPath {
  runId: string;
  kind: CheckpointKind;
  name: string;
}

const PATH_RE = /^tinker:\/\/([^/]+)\/(weights|sampler_weights)\/([^/]+)$/;

export function parseTinkerPath(path: string): TinkerPath | undefined {
  const m = PATH_RE.exec(path);
  return m ? { runId: m[1], kind: m[2] as CheckpointKind, name: m[3] } : undefined;
}

export function tinkerPath(p: TinkerPath): string {
  return `tinker://${p.runId}/${p.kind}/${p.name}`;
}

/** A checkpoint name must be one path segment. */
export function validCheckpointName(name: string): boolean {
  return name.length > 0 && name.length <= 200 && !name.includes("/") && name !== "." && name !== "..";
}

/** One-space JSON without a trailing newline: the bytes this store has always written. */
function writeJson(path: string, value: unknown): void {
  writeFileAtomic(path, JSON.stringify(value, null, 1));
}

function runFolder(dir: string, runId: string): string {
  return join(dir, "runs", encodeURIComponent(runId));
}

/** The file naming a backend folder: a random id, so a client can tell which folder a running backend serves. */
const STORE_ID_FILE = "store-id";

/** The folder's id, made on first use (two processes racing both read the one that won). */
export function localStoreId(dir: string): string {
  const file = join(dir, STORE_ID_FILE);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    createFileExclusive(file, randomUUID());
  }
  return readFileSync(file, "utf8").trim();
}

export class CheckpointStore {
  /** This folder's id (localStoreId), reported by get_server_capabilities. */
  readonly id: string;

  constructor(readonly dir: string) {
    mkdirSync(join(dir, "runs"), { recursive: true });
    this.id = localStoreId(dir);
  }

  private runDir(runId: string): string {
    return runFolder(this.dir, runId);
  }

  checkpointDir(p: TinkerPath): string {
    return join(this.runDir(p.runId), p.kind, encodeURIComponent(p.name));
  }

  saveRun(run: RunRecord): void {
    mkdirSync(this.runDir(run.training_run_id), { recursive: true });
    writeJson(join(this.runDir(run.training_run_id), "run.json"), run);
  }

  getRun(runId: string): RunRecord | undefined {
    const file = join(this.runDir(runId), "run.json");
    return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as RunRecord) : undefined;
  }

  listRuns(): RunRecord[] {
    const root = join(this.dir, "runs");
    return readdirSync(root)
      .map((d) => this.getRun(decodeURIComponent(d)))
      .filter((r): r is RunRecord => r !== undefined)
      .sort((a, b) => (a.created < b.created ? 1 : a.created > b.created ? -1 : 0));
  }

  exists(p: TinkerPath): boolean {
    return this.liveMeta(p) !== undefined;
  }

  private expired(c: Checkpoint): boolean {
    return c.expires_at !== undefined && Date.parse(c.expires_at) < Date.now();
  }

  /** A checkpoint's record unless it is absent or past its TTL; an expired one is removed from disk here, as Tinker drops it. */
  liveMeta(p: TinkerPath): Checkpoint | undefined {
    const meta = this.checkpointMeta(p);
    if (meta && this.expired(meta)) {
      this.delete(p);
      return undefined;
    }
    return meta;
  }

  /** Clears a checkpoint's folder before a model is written into it (saveModel in the compute worker). */
  prepare(p: TinkerPath): string {
    const dir = this.checkpointDir(p);
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    return dir;
  }

  /** Marks a checkpoint written by prepare + saveModel complete: checkpoint.json goes last. */
  commit(p: TinkerPath, sizeBytes: number, ttlSeconds: number | undefined): Checkpoint {
    const now = new Date();
    const meta: Checkpoint = {
      checkpoint_id: `${p.kind}/${p.name}`,
      checkpoint_type: p.kind === "weights" ? "training" : "sampler",
      time: now.toISOString(),
      tinker_path: tinkerPath(p),
      size_bytes: sizeBytes,
      public: false,
    };
    if (ttlSeconds !== undefined && ttlSeconds > 0)
      meta.expires_at = new Date(now.getTime() + ttlSeconds * 1000).toISOString();
    writeJson(join(this.checkpointDir(p), "checkpoint.json"), meta);
    return meta;
  }

  checkpointMeta(p: TinkerPath): Checkpoint | undefined {
    const file = join(this.checkpointDir(p), "checkpoint.json");
    return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Checkpoint) : undefined;
  }

  /** Live checkpoints of a run, oldest first. */
  listCheckpoints(runId: string): Checkpoint[] {
    const out: Checkpoint[] = [];
    for (const kind of ["weights", "sampler_weights"] as const) {
      const kindDir = join(this.runDir(runId), kind);
      if (!existsSync(kindDir)) continue;
      for (const entry of readdirSync(kindDir)) {
        const meta = this.liveMeta({ runId, kind, name: decodeURIComponent(entry) });
        if (meta) out.push(meta);
      }
    }
    return out.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
  }

  delete(p: TinkerPath): boolean {
    const dir = this.checkpointDir(p);
    if (!existsSync(dir)) return false;
    rmSync(dir, { recursive: true, force: true });
    return true;
  }

  /** Sets the expiry `ttlSeconds` from now, or removes it (null); false when there is no such live checkpoint. */
  setTtl(p: TinkerPath, ttlSeconds: number | null): boolean {
    return this.update(p, (meta) => {
      if (ttlSeconds === null || ttlSeconds <= 0) delete meta.expires_at;
      else meta.expires_at = new Date(Date.now() + ttlSeconds * 1000).toISOString();
    });
  }

  /** Publishes (public: true) or unpublishes a checkpoint; false when there is no such live checkpoint. */
  setPublic(p: TinkerPath, isPublic: boolean): boolean {
    return this.update(p, (meta) => {
      meta.public = isPublic;
    });
  }

  private update(p: TinkerPath, change: (meta: Checkpoint) => void): boolean {
    const meta = this.liveMeta(p);
    if (!meta) return false;
    change(meta);
    writeJson(join(this.checkpointDir(p), "checkpoint.json"), meta);
    return true;
  }

  /** The files of a live checkpoint (names relative to its folder, "/"-separated, sorted), for its archive. */
  checkpointFiles(p: TinkerPath): { name: string; path: string }[] | undefined {
    if (!this.exists(p)) return undefined;
    const root = this.checkpointDir(p);
    const out: { name: string; path: string }[] = [];
    const walk = (dir: string, prefix: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
        if (entry.isDirectory()) walk(join(dir, entry.name), `${prefix}${entry.name}/`);
        else if (entry.isFile()) out.push({ name: `${prefix}${entry.name}`, path: join(dir, entry.name) });
      }
    };
    walk(root, "");
    return out;
  }

  /** Every live checkpoint of every run, with the run's base model (for storage metering). */
  allCheckpoints(): { checkpoint: Checkpoint; baseModel: string }[] {
    return this.listRuns().flatMap((run) =>
      this.listCheckpoints(run.training_run_id).map((checkpoint) => ({ checkpoint, baseModel: run.base_model })),
    );
  }

  trainingRun(run: RunRecord): TrainingRun {
    const checkpoints = this.listCheckpoints(run.training_run_id);
    const last = (type: Checkpoint["checkpoint_type"]) => checkpoints.filter((c) => c.checkpoint_type === type).pop();
    const out: TrainingRun = {
      training_run_id: run.training_run_id,
      base_model: run.base_model,
      model_owner: "local",
      is_lora: true,
      corrupted: false,
      lora_rank: run.lora_config.rank,
      last_request_time: run.last_request_time,
    };
    const lc = last("training");
    const ls = last("sampler");
    if (lc) out.last_checkpoint = lc;
    if (ls) out.last_sampler_checkpoint = ls;
    if (run.user_metadata) out.user_metadata = run.user_metadata;
    return out;
  }
}

/** Whether a local backend folder holds a training run (without creating anything). */
export function localStoreHasRun(dir: string, runId: string): boolean {
  return existsSync(join(runFolder(dir, runId), "run.json"));
}
