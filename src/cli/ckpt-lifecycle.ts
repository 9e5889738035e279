/**
 * `agent-lab ckpt info|ttl|publish|unpublish|download|delete NAME|PATH` and `ckpt --remote`: a
 * checkpoint's lifecycle on the service that holds it. A NAME means both of its checkpoints (state
 * and sampler); a tinker:// PATH means that one. Every refusal comes before anything changes.
 */
import { resolve } from "node:path";
import { UserError } from "../core/base/errors";
import { checkpointDependents, describeDependents } from "../core/base/checkpoints/dependents";
import { readRegistry, registryPath, requireCheckpoint, type CheckpointEntry } from "../core/base/checkpoints/registry";
import {
  describeExpiry,
  describeRemoteCheckpoint,
  EXPIRY_WARNING_DAYS,
  expiresSoon,
  formatBytes,
  timeLeft,
  type CheckpointStatus,
  type OutsideCheckpoints,
} from "../core/base/checkpoints/remote-state";
import { parseTinkerPath, TinkerApiError, type TinkerService } from "../core/base/tinker";
import { downloadCheckpoint } from "../core/base/tinker/checkpoint-download";
import type { Checkpoint } from "../core/base/tinker/wire/types";
import { chooseBackend, connectCheckpointService, type ServiceName } from "./checkpoint-service";

export const LIFECYCLE_VERBS = ["info", "ttl", "publish", "unpublish", "download", "delete", "status"] as const;
export type LifecycleVerb = (typeof LIFECYCLE_VERBS)[number];

export interface LifecycleOptions {
  verb: LifecycleVerb | "remote";
  args: string[];
  runsDir: string;
  workspaceDir: string;
  backend: string | undefined;
  port: number;
  out: string | undefined;
  force: boolean;
  yes: boolean;
  json: boolean;
}

interface Target {
  /** What the user typed (a name or a path). */
  label: string;
  /** The registered entry it names or whose path it is. */
  entry?: CheckpointEntry;
  paths: string[];
}

const SERVICE_WORDS: Record<ServiceName, string> = { local: "the local backend", tinker: "Tinker" };
const DAY_S = 86_400;

function resolveTarget(runsDir: string, arg: string | undefined, verb: string): Target {
  if (!arg) throw new UserError(`agent-lab ckpt ${verb} needs a checkpoint NAME or tinker:// PATH`);
  const entries = readRegistry(registryPath(runsDir));
  if (arg.startsWith("tinker://")) {
    parseTinkerPath(arg);
    const entry = [...entries].reverse().find((e) => e.state_path === arg || e.sampler_path === arg);
    return { label: arg, entry, paths: [arg] };
  }
  const entry = requireCheckpoint(registryPath(runsDir), arg);
  return { label: arg, entry, paths: [...new Set([entry.state_path, entry.sampler_path])] };
}

/** The service's records of the paths (undefined where it has none), one listing per training run. */
async function lookUp(service: TinkerService, paths: readonly string[]): Promise<Map<string, Checkpoint | undefined>> {
  const byRun = new Map<string, Checkpoint[]>();
  const out = new Map<string, Checkpoint | undefined>();
  for (const path of paths) {
    const run = parseTinkerPath(path).trainingRunId;
    if (!byRun.has(run)) {
      let listed: Checkpoint[] = [];
      try {
        listed = (await service.listCheckpoints(run)).checkpoints;
      } catch (e) {
        // An unknown training run has no checkpoints; anything else (auth, network) is the user's to see.
        if (!(e instanceof TinkerApiError && e.status === 404)) throw e;
      }
      byRun.set(run, listed);
    }
    out.set(
      path,
      byRun.get(run)!.find((c) => c.tinker_path === path),
    );
  }
  return out;
}

function requireAll(found: Map<string, Checkpoint | undefined>, where: string): Checkpoint[] {
  const missing = [...found].filter(([, c]) => !c).map(([p]) => p);
  if (missing.length)
    throw new UserError(`no checkpoint at ${missing.join(", ")} on ${where} (it was deleted or has expired)`);
  return [...found.values()] as Checkpoint[];
}

function parseDays(raw: string | undefined): number | null {
  if (raw === "none") return null;
  const days = Number(raw);
  if (raw === undefined || raw.trim() === "" || !Number.isFinite(days) || days <= 0)
    throw new UserError(`TTL must be a number of days above 0, or "none" to remove the expiry; got "${raw ?? ""}"`);
  return Math.max(1, Math.round(days * DAY_S));
}

function warnIfExpiring(target: Target, checkpoints: readonly Checkpoint[]): void {
  if (!target.entry) return;
  for (const c of checkpoints)
    if (c.expires_at && expiresSoon(c))
      console.error(
        `warning: ${target.entry.name} (${c.tinker_path}) expires ${timeLeft(c.expires_at)}, within ${EXPIRY_WARNING_DAYS} days; ` +
          `extend it with agent-lab ckpt ttl ${target.entry.name} DAYS`,
      );
}

export async function runLifecycle(o: LifecycleOptions): Promise<void> {
  if (o.verb === "remote") return listRemote(o);
  if (o.verb === "status") return status(o);
  const [arg, ...rest] = o.args;
  const target = resolveTarget(o.runsDir, arg, o.verb);
  const extraAllowed = o.verb === "ttl" || o.verb === "download" ? 1 : 0;
  if (rest.length > extraAllowed) throw new UserError(`unexpected arguments: ${rest.slice(extraAllowed).join(" ")}`);
  const ttl = o.verb === "ttl" ? parseDays(rest[0]) : undefined;
  const backend = await chooseBackend(o.backend, o.workspaceDir, parseTinkerPath(target.paths[0]).trainingRunId);
  const where = SERVICE_WORDS[backend];
  const conn = await connectCheckpointService(backend, o.workspaceDir, o.port);
  try {
    const service = conn.service;
    switch (o.verb) {
      case "info": {
        const found = await lookUp(service, target.paths);
        const live = requireAll(found, where);
        for (const c of live) console.log(describeRemoteCheckpoint(c));
        warnIfExpiring(target, live);
        return;
      }
      case "ttl": {
        requireAll(await lookUp(service, target.paths), where);
        for (const p of target.paths) await service.setCheckpointTtl(p, ttl ?? null);
        const after = requireAll(await lookUp(service, target.paths), where);
        for (const c of after) console.log(`${c.tinker_path}  ${describeExpiry(c)}`);
        warnIfExpiring(target, after);
        return;
      }
      case "publish":
      case "unpublish": {
        requireAll(await lookUp(service, target.paths), where);
        for (const p of target.paths) await service.setCheckpointPublished(p, o.verb === "publish");
        for (const p of target.paths) console.log(`${p}  ${o.verb === "publish" ? "public" : "private"}`);
        return;
      }
      case "download":
        return await download(service, target, rest[0], o, where);
      case "delete":
        return await remove(service, target, o, where);
    }
  } finally {
    await conn.close();
  }
}

async function download(
  service: TinkerService,
  target: Target,
  which: string | undefined,
  o: LifecycleOptions,
  where: string,
): Promise<void> {
  if (which !== undefined && which !== "sampler" && which !== "state")
    throw new UserError(`download's second argument must be "sampler" or "state", got "${which}"`);
  const path =
    target.paths.length === 1
      ? target.paths[0]
      : which === "state"
        ? target.entry!.state_path
        : target.entry!.sampler_path;
  requireAll(await lookUp(service, [path]), where);
  let shown = -1;
  const result = await downloadCheckpoint(service, path, resolve(o.out ?? "."), {
    force: o.force,
    onProgress: ({ bytes, totalBytes }) => {
      const pct = totalBytes ? Math.floor((100 * bytes) / totalBytes / 25) * 25 : -1;
      if (pct > shown) {
        shown = pct;
        console.error(`downloading ${path}: ${formatBytes(bytes)} of ${formatBytes(totalBytes)} (${pct}%)`);
      }
    },
  });
  console.log(`downloaded ${path} (${formatBytes(result.bytes)}, ${result.files.length} files) to ${result.dir}`);
}

async function remove(service: TinkerService, target: Target, o: LifecycleOptions, where: string): Promise<void> {
  const found = await lookUp(service, target.paths);
  const live = [...found.values()].filter((c): c is Checkpoint => c !== undefined);
  if (live.length === 0) requireAll(found, where);
  const dependents = checkpointDependents(o.runsDir, readRegistry(registryPath(o.runsDir)), {
    name: target.entry?.name,
    paths: target.entry ? [target.entry.state_path, target.entry.sampler_path] : target.paths,
    run: target.entry?.run,
  });
  if (dependents.length && !o.force)
    throw new UserError(
      `${target.label} is still needed: ${describeDependents(dependents)}; pass --force to delete it anyway`,
    );
  if (!o.yes) {
    const size = live.reduce((s, c) => s + (c.size_bytes ?? 0), 0);
    throw new UserError(
      `deleting ${target.label} removes ${live.map((c) => c.tinker_path).join(", ")} (${formatBytes(size)}) from ${where} for good; pass --yes to confirm`,
    );
  }
  for (const c of live) {
    await service.deleteCheckpoint(c.tinker_path);
    console.log(`deleted ${c.tinker_path}`);
  }
}

/** The account's checkpoints that no registered name points at (--json: OutsideCheckpoints, for the Checkpoints view). */
async function listRemote(o: LifecycleOptions): Promise<void> {
  if (o.args.length) throw new UserError(`unexpected arguments: ${o.args.join(" ")}`);
  const backend = await chooseBackend(o.backend, o.workspaceDir, undefined);
  const conn = await connectCheckpointService(backend, o.workspaceDir, o.port);
  try {
    const registered = new Set(readRegistry(registryPath(o.runsDir)).flatMap((e) => [e.state_path, e.sampler_path]));
    const all: Checkpoint[] = [];
    for (;;) {
      const page = await conn.service.listUserCheckpoints({ limit: 1000, offset: all.length });
      all.push(...page.checkpoints);
      const total = page.cursor?.total_count ?? all.length;
      if (page.checkpoints.length === 0 || all.length >= total) break;
    }
    const outside = all.filter((c) => !registered.has(c.tinker_path));
    if (o.json) {
      const report: OutsideCheckpoints = { backend, checkpoints: outside, total: all.length };
      return void console.log(JSON.stringify(report));
    }
    for (const c of outside) console.log(describeRemoteCheckpoint(c));
    console.log(
      `${outside.length} checkpoint${outside.length === 1 ? "" : "s"} on ${SERVICE_WORDS[backend]} not in this workspace (of ${all.length})`,
    );
  } finally {
    await conn.close();
  }
}

/** Every registered checkpoint's record on its service, for the Checkpoints view's rows (one listing per training run). */
async function status(o: LifecycleOptions): Promise<void> {
  if (o.args.length) throw new UserError(`unexpected arguments: ${o.args.join(" ")}`);
  const latest = new Map<string, CheckpointEntry>();
  for (const e of readRegistry(registryPath(o.runsDir))) latest.set(e.name, e);
  const byBackend = new Map<ServiceName, CheckpointEntry[]>();
  for (const e of latest.values()) {
    let backend: ServiceName;
    try {
      backend = await chooseBackend(o.backend, o.workspaceDir, parseTinkerPath(e.state_path).trainingRunId);
    } catch (err) {
      // A malformed path in the registry has no service record; the view shows it without one.
      if (err instanceof UserError) continue;
      throw err;
    }
    byBackend.set(backend, [...(byBackend.get(backend) ?? []), e]);
  }
  const out: CheckpointStatus[] = [];
  for (const [backend, entries] of byBackend) {
    const conn = await connectCheckpointService(backend, o.workspaceDir, o.port);
    try {
      const found = await lookUp(
        conn.service,
        entries.flatMap((e) => [e.state_path, e.sampler_path]),
      );
      for (const e of entries)
        out.push({
          name: e.name,
          backend,
          state: found.get(e.state_path) ?? null,
          sampler: found.get(e.sampler_path) ?? null,
        });
    } finally {
      await conn.close();
    }
  }
  if (o.json) return void console.log(JSON.stringify(out));
  for (const s of out)
    for (const c of [s.state, s.sampler]) if (c) console.log(`${s.name}  ${describeRemoteCheckpoint(c)}`);
}
