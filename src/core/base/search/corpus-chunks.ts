/**
 * corpus.jsonl read front to back in newline-aligned batches for the tokenizers, with a fixed
 * buffer (never the whole file), cut so that no batch straddles a chunk: a chunk is a fixed number
 * of lines (one document each), the unit a streaming build finishes, keeps and resumes after.
 */
import { closeSync, openSync, readSync } from "node:fs";

export interface CorpusBatch {
  /** 1-based line number of the batch's first line. */
  firstLine: number;
  bytes: Uint8Array;
  /** Byte offset in the corpus just past the batch, and the lines read up to there. */
  end: number;
  linesEnd: number;
  /** Whether the batch ends a chunk (the last chunk of a corpus ends at the end of the file instead). */
  endsChunk: boolean;
}

/** Where reading starts: a chunk boundary (the start of the file, or a kept chunk's end). */
export interface CorpusPosition {
  offset: number;
  lines: number;
}

export function* readCorpusBatches(
  file: string,
  batchBytes: number,
  chunkLines: number,
  start: CorpusPosition = { offset: 0, lines: 0 },
): Generator<CorpusBatch> {
  const fd = openSync(file, "r");
  try {
    let carry = Buffer.alloc(0);
    let offset = start.offset; // of carry's first byte
    let readAt = start.offset;
    let lines = start.lines;
    let inChunk = 0;
    const buffer = Buffer.allocUnsafe(batchBytes);
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, readAt);
      readAt += n;
      const data = n > 0 ? Buffer.concat([carry, buffer.subarray(0, n)]) : carry;
      const whole = n > 0 ? data.lastIndexOf(10) + 1 : data.length; // at the end, the last line needs no newline
      for (let at = 0; at < whole;) {
        let cut = whole;
        let count = 0;
        let endsChunk = false;
        for (let i = data.indexOf(10, at); i >= 0 && i < whole; i = data.indexOf(10, i + 1)) {
          count++;
          if (inChunk + count === chunkLines) {
            cut = i + 1;
            endsChunk = true;
            break;
          }
        }
        const bytes = new Uint8Array(cut - at);
        bytes.set(data.subarray(at, cut));
        // Counted before yielding: the consumer may transfer (detach) the bytes.
        const batch = { firstLine: lines + 1, bytes, end: offset + cut, linesEnd: lines + count, endsChunk };
        lines += count;
        inChunk = endsChunk ? 0 : inChunk + count;
        at = cut;
        yield batch;
      }
      carry = Buffer.from(data.subarray(whole));
      offset += whole;
      if (n === 0) return;
    }
  } finally {
    closeSync(fd);
  }
}
