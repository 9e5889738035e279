/**
 * Compare's cache of a run, kept beside it in a hidden file (RUN_FILES.compareCache) so a large run
 * is read and resampled once: the fields of each episode ablate reads (a few MB of the 37 MB that
 * episodes.jsonl holds at 10,000 episodes, where parsing both runs' lines took as long as
 * resampling them) and the resampled results its columns gave (ResampleMemo's keys name what they
 * were computed from, so a result can never be another column's). The records are stale once
 * episodes.jsonl's size or mtime changes, as the trace's text cache. It is a cache: a missing,
 * stale, damaged or foreign file is ignored, never an error, and a run folder that cannot be
 * written is compared without one.
 *
 * The process also keeps the last runs' caches it read or wrote while their files stay as they were
 * (the same runs with another baseline or other expected differences are not read again).
 */
import { endianness } from "node:os";
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileStamp } from "../../base/util/file-stamp";
import { episodesStamp, listRuns, readRunHead, readSummaryHead, type EpisodesStamp } from "../../base/runs/run-files";
import { runFile } from "../../base/runs/run-folder";
import { writeJsonAtomic } from "../../base/util/atomic-write";
import { ResampleMemo, type ResampleResult } from "../../base/stats/resample-memo";
import { ablate, readAblationInputs, readAblationRun, type AblationEpisode, type AblationInput } from "./ablate";

export const COMPARE_CACHE_FORMAT = "agent-lab/compare-cache-1";

/** Results kept per run: the latest used (a run compared with many others, under many settings, keeps these). */
const KEEP_RESULTS = 24;
/** Runs the process keeps read (about 10 MB each at 10,000 episodes). */
const KEEP_RUNS = 4;

interface CompareCacheFile {
  format: typeof COMPARE_CACHE_FORMAT;
  /** episodes.jsonl as it was before the records were read. */
  episodes: EpisodesStamp;
  records: AblationEpisode[];
  /** ResampleMemo keys with their results: resampled means as base64 of little-endian float64, or a p. */
  results: [string, string | number][];
}

interface CachedRun {
  stamp: EpisodesStamp;
  records: AblationEpisode[];
  results: Map<string, ResampleResult>;
  /** The cache file's size and mtime when read or written: another process may write it since. */
  file: string;
}

const held = new Map<string, CachedRun>();

/** Float64 bytes are saved as this machine holds them: only little-endian ones read or write them. */
const LITTLE_ENDIAN = endianness() === "LE";

const sameStamp = (a: EpisodesStamp, b: EpisodesStamp) => a.size === b.size && a.mtime_ms === b.mtime_ms;

function encode(v: ResampleResult): string | number {
  return typeof v === "number" ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64");
}

function decode(v: string | number): ResampleResult | undefined {
  if (typeof v === "number") return v;
  const bytes = Buffer.from(v, "base64");
  if (bytes.byteLength % 8 !== 0) return undefined;
  // A copy: Buffer's bytes may start off a float64 boundary.
  return new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

/** The fields ablate reads, without the rest of the record (the token arrays that make up most of it). */
function ablationFields(e: AblationEpisode): AblationEpisode {
  const { id, question, answers, prediction, metrics, end, searches, usd } = e;
  return { id, question, answers, prediction, metrics, end, searches, usd };
}

function hold(dir: string, run: CachedRun): void {
  held.delete(dir);
  held.set(dir, run);
  while (held.size > KEEP_RUNS) held.delete(held.keys().next().value!);
}

/** The run's cache when it matches episodes.jsonl as it is now (`stamp`); else undefined. */
function readCache(dir: string, stamp: EpisodesStamp): CachedRun | undefined {
  const file = runFile(dir, "compareCache");
  const onDisk = fileStamp(file);
  const kept = held.get(dir);
  if (kept && sameStamp(kept.stamp, stamp) && kept.file === onDisk) return kept;
  if (!LITTLE_ENDIAN || onDisk === "") return undefined;
  let cache: Partial<CompareCacheFile>;
  try {
    cache = JSON.parse(readFileSync(file, "utf8")) as Partial<CompareCacheFile>;
  } catch {
    return undefined; // damaged (it is renamed into place, so not by a crash mid-write): read the run
  }
  if (
    cache.format !== COMPARE_CACHE_FORMAT ||
    !cache.episodes ||
    !sameStamp(cache.episodes, stamp) ||
    !Array.isArray(cache.records) ||
    !Array.isArray(cache.results)
  )
    return undefined;
  const results = new Map<string, ResampleResult>();
  for (const [key, value] of cache.results) {
    const v = decode(value);
    if (v !== undefined) results.set(key, v);
  }
  const run = { stamp, records: cache.records, results, file: onDisk };
  hold(dir, run);
  return run;
}

/**
 * Whether the run's cache names episodes.jsonl as it is now, read from the file's first bytes alone
 * (writeCache puts the format and the episodes' stamp before the records): a scan of a folder of
 * large runs reads no cache whole (5 MB at 10,000 episodes). A file that does not start so: no.
 */
function cacheMatches(dir: string, stamp: EpisodesStamp): boolean {
  let head: string;
  try {
    const fd = openSync(runFile(dir, "compareCache"), "r");
    try {
      const bytes = Buffer.alloc(HEAD_BYTES);
      head = bytes.toString("utf8", 0, readSync(fd, bytes, 0, HEAD_BYTES, 0));
    } finally {
      closeSync(fd);
    }
    const end = head.indexOf(',"records":');
    const start = end < 0 ? undefined : (JSON.parse(`${head.slice(0, end)}}`) as Partial<CompareCacheFile>);
    return start?.format === COMPARE_CACHE_FORMAT && !!start.episodes && sameStamp(start.episodes, stamp);
  } catch {
    return false; // none, or not one of ours
  }
}

/** More than the format and the stamp take at the start of a cache file. */
const HEAD_BYTES = 512;

/** Whether every run has a cache matching its episodes.jsonl (then comparing them reads only those caches). */
export function cachedForCompare(dirs: readonly string[]): boolean {
  return dirs.every((dir) => readCache(dir, episodesStamp(dir)) !== undefined);
}

/** Runs read for Compare, with the resampling that remembers their results; `save` keeps both for the next time. */
export interface CompareRuns {
  inputs: AblationInput[];
  resampling: ResampleMemo;
  /** Writes each run's cache where it gained something (records read from episodes.jsonl, new results). */
  save(): void;
}

/** The runs as loadAblationInputs reads them, each from its cache when that matches its episodes.jsonl. */
export function loadCompareRuns(dirs: readonly string[]): CompareRuns {
  const runs: { dir: string; stamp: EpisodesStamp; cached: CachedRun | undefined; records: AblationEpisode[] }[] = [];
  const inputs = readAblationInputs(dirs, (dir): Pick<AblationInput, "manifest" | "episodes"> => {
    // Taken before reading: an episode appended meanwhile makes the saved records stale, not wrong.
    const stamp = episodesStamp(dir);
    const cached = readCache(dir, stamp);
    const read = cached ? { manifest: readRunHead(dir).manifest, episodes: cached.records } : readAblationRun(dir);
    runs.push({ dir, stamp, cached, records: cached ? cached.records : read.episodes.map(ablationFields) });
    return read;
  });
  const resampling = new ResampleMemo();
  for (const r of runs) if (r.cached) resampling.remember(r.cached.results);
  const save = () =>
    runs.forEach((r, k) => {
      const results = new Map(r.cached?.results);
      let gained = r.cached === undefined;
      for (const [key, value] of resampling.resultsOf(k)) {
        if (!results.has(key)) gained = true;
        results.delete(key); // re-inserted: the latest used are kept
        results.set(key, value);
      }
      if (!gained) return;
      const kept = new Map([...results].slice(-KEEP_RESULTS));
      const run = { stamp: r.stamp, records: r.records, results: kept, file: "" };
      if (writeCache(r.dir, run)) hold(r.dir, { ...run, file: fileStamp(runFile(r.dir, "compareCache")) });
    });
  return { inputs, resampling, save };
}

/** Saves the run's cache; false when it was not (see below). */
function writeCache(dir: string, run: CachedRun): boolean {
  if (!LITTLE_ENDIAN) return false;
  // Not while episodes.jsonl is not what was read, nor while a writer holds the run (an eval still appending).
  if (!sameStamp(episodesStamp(dir), run.stamp) || existsSync(runFile(dir, "lock"))) return false;
  const file: CompareCacheFile = {
    format: COMPARE_CACHE_FORMAT,
    episodes: run.stamp,
    records: run.records,
    results: [...run.results].map(([key, value]) => [key, encode(value)]),
  };
  try {
    writeJsonAtomic(runFile(dir, "compareCache"), file, 0);
    return true;
  } catch {
    return false; // a read-only run folder (copied from elsewhere): Compare works without its cache
  }
}

/**
 * Writes a finished run's Compare cache before anyone compares it: its records and its own columns'
 * resampled means. A column's resampled means depend on the column and the settings alone, so they
 * are the ones a Compare with any run on the same questions draws; the eval writes this at its end
 * so the first Compare of two large runs reads two caches and draws only their paired test. Never
 * an error (a cache): a run it cannot read or write is compared without one.
 */
export function keepForCompare(dir: string): void {
  try {
    const runs = loadCompareRuns([dir]);
    ablate(runs.inputs, { resampling: runs.resampling });
    runs.save();
  } catch {
    // no finished episode, a torn file, a read-only folder: Compare reads the run itself
  }
}

/**
 * Keeps a Compare cache for each finished eval run under `runsDir` whose episodes.jsonl is larger
 * than `minBytes` and has no cache that matches it (an earlier build's runs, runs copied in): what
 * the eval would have kept, so their first Compare reads the caches instead of drawing 10^8
 * resamples (1.6 s at 10,000 questions). Returns the names of the runs given one. Never throws: a
 * run it cannot read or write is left as it is.
 */
export function keepMissingForCompare(runsDir: string, minBytes: number): string[] {
  const kept: string[] = [];
  let names: string[];
  try {
    names = listRuns(runsDir);
  } catch {
    return kept; // no runs folder, or one that cannot be listed
  }
  for (const name of names) {
    const dir = join(runsDir, name);
    try {
      if (!existsSync(runFile(dir, "manifest")) || statSync(runFile(dir, "episodes")).size <= minBytes) continue;
      if (readSummaryHead(dir)?.status !== "done" || cacheMatches(dir, episodesStamp(dir))) continue;
    } catch {
      continue; // no episodes, a torn summary: Compare reads and names it
    }
    keepForCompare(dir);
    if (cachedForCompare([dir])) kept.push(name);
  }
  return kept;
}
