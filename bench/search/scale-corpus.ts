/**
 * A scale's synthetic corpus and its queries, written once under the work folder and reused while
 * what made them (generator version, seed, size, shape, vocabulary, query count) is unchanged: the
 * 21M corpus takes ~20 minutes and 13 GB, so a second run must not write it again, and a corpus
 * cut short by a kill must never be reused (it is written under a temporary name and renamed, and
 * the record that vouches for it is written last).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { writeJsonAtomic } from "../../src/core/base/util/atomic-write";
import { heapsTypes, type Scale } from "./scales";
import { makeQueries, queryParagraphIds, SyntheticCorpus, type CorpusStats } from "./synthetic-corpus";

/** Bumped whenever the generator would write different bytes for the same options. */
const GENERATOR_VERSION = 2;
const SEED = 20261129;

export interface CorpusRecord {
  generator: number;
  seed: number;
  scale: string;
  docs: number;
  shape: string;
  vocabulary: number;
  queries: number;
  bytes: number;
  stats: CorpusStats;
  /** Heaps' law's types for stats.words (scales.ts), to print next to the measured ones. */
  heapsTypes: number;
  seconds: number;
  written: string;
}

export interface ScaleCorpus {
  corpus: string;
  queriesFile: string;
  record: CorpusRecord;
  reused: boolean;
}

export function scaleWorkDir(work: string, scale: Scale): string {
  return join(work, `scale-${scale.name}`);
}

function matches(record: CorpusRecord, scale: Scale, queries: number, corpus: string): boolean {
  return (
    record.generator === GENERATOR_VERSION &&
    record.seed === SEED &&
    record.docs === scale.docs &&
    record.shape === scale.shape &&
    record.vocabulary === scale.vocabulary &&
    record.queries === queries &&
    existsSync(corpus) &&
    statSync(corpus).size === record.bytes
  );
}

export async function ensureScaleCorpus(
  work: string,
  scale: Scale,
  queries: number,
  log: (msg: string) => void,
): Promise<ScaleCorpus> {
  const dir = scaleWorkDir(work, scale);
  mkdirSync(dir, { recursive: true });
  const corpus = join(dir, "corpus.jsonl");
  const queriesFile = join(dir, "queries.json");
  const recordFile = join(dir, "corpus.record.json");
  if (existsSync(recordFile) && existsSync(queriesFile)) {
    const record = JSON.parse(readFileSync(recordFile, "utf8")) as CorpusRecord;
    if (matches(record, scale, queries, corpus)) return { corpus, queriesFile, record, reused: true };
  }
  rmSync(recordFile, { force: true });
  const started = performance.now();
  log(`writing the ${scale.name} corpus (${scale.docs.toLocaleString()} ${scale.shape}) to ${corpus}`);
  const generator = new SyntheticCorpus({
    docs: scale.docs,
    seed: SEED,
    vocabulary: scale.vocabulary,
    shape: scale.shape,
  });
  const partial = `${corpus}.partial`;
  const kept = await generator.write(partial, queryParagraphIds(scale.docs, queries), (n) => {
    const s = (performance.now() - started) / 1000;
    log(`  ${n.toLocaleString()} written, ${s.toFixed(0)} s, ETA ${((s / n) * (scale.docs - n)).toFixed(0)} s`);
  });
  renameSync(partial, corpus);
  writeJsonAtomic(queriesFile, makeQueries(kept, queries));
  const stats = generator.stats(scale.docs);
  const record: CorpusRecord = {
    generator: GENERATOR_VERSION,
    seed: SEED,
    scale: scale.name,
    docs: scale.docs,
    shape: scale.shape,
    vocabulary: scale.vocabulary,
    queries,
    bytes: statSync(corpus).size,
    stats,
    heapsTypes: Math.round(heapsTypes(stats.words)),
    seconds: (performance.now() - started) / 1000,
    written: new Date().toISOString(),
  };
  writeJsonAtomic(recordFile, record);
  return { corpus, queriesFile, record, reused: false };
}
