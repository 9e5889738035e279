/**
 * The index builder's last heavy loop: postings, in document order, scattered
 * into each term's posting list with their BM25 contributions. It runs in two halves at once (the
 * builder's thread and a build worker, over shared memory): the second half's cursors start where
 * the first half's postings of each term end, so each list stays in document order and the two
 * halves never write the same place.
 */
import { termScore } from "./bm25-format";

/** A run of (term, tf) pairs in document order; the arrays may be longer than n. Shared memory when sent to a worker. */
export interface PostingChunk {
  term: Uint32Array;
  tf: Uint16Array;
  n: number;
}

export interface ScatterJob {
  /** Consecutive chunks, the first starting at posting number `first`. */
  chunks: PostingChunk[];
  first: number;
  /** Per document: one past the number of its last posting (so the document of each posting is implied). */
  docEnds: Float64Array;
  /** Per term id: idf; per document: the length norm (bm25-format.ts). */
  idf: Float64Array;
  norm: Float64Array;
  /** Per term id: where its next posting goes (advanced here). */
  cursor: Uint32Array;
  /** The posting lists being filled (shared memory). */
  docs: Uint32Array;
  scores: Float32Array;
}

/** Asks a build worker to run a job. */
export interface ScatterRequest {
  scatter: ScatterJob;
}

export interface ScatterResult {
  /** Per term id: the largest contribution among this job's postings (0 where none). */
  maxById: Float32Array;
}

/** Scatters the job's chunks (dropping each from the job once done, so it can be freed). */
export function scatterPostings(job: ScatterJob): ScatterResult {
  const { docEnds, idf, norm, cursor, docs, scores } = job;
  // The per-term state is indexed by term id, not rank: ids are in order of first appearance, so
  // the frequent terms' entries sit together and stay in the CPU caches.
  const maxById = new Float32Array(cursor.length);
  let g = job.first; // number of the next posting
  let d = firstDocAfter(docEnds, g);
  for (let i = 0; i < job.chunks.length; i++) {
    const { term, tf, n } = job.chunks[i];
    for (let p = 0; p < n; p++, g++) {
      while (docEnds[d] <= g) d++; // also steps over documents without terms
      const t = term[p];
      const at = cursor[t]++;
      const s = termScore(idf[t], tf[p], norm[d]);
      docs[at] = d;
      scores[at] = s;
      if (s > maxById[t]) maxById[t] = s;
    }
    job.chunks[i] = undefined as never;
  }
  job.chunks = [];
  return { maxById };
}

/** The first document whose end is past posting g (binary search). */
function firstDocAfter(docEnds: Float64Array, g: number): number {
  let lo = 0;
  let hi = docEnds.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (docEnds[mid] <= g) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
