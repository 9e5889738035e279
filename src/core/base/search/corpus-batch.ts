/**
 * The CPU-heavy half of an index build: one batch of corpus.jsonl lines → per-document term counts
 * and the UTF-8 title/text bytes to store. Runs inside build workers (or inline when workers are not
 * available). Terms get batch-local-stable ids from this tokenizer's own vocabulary; the builder
 * maps them to global ids.
 */
import { stemEnglish } from "./english-stemmer";
import { ENGLISH_STOPWORDS, forEachWordSpan, ownCopy } from "./tokenizer";
import { MISSING, WordTable } from "./word-table";

export interface BatchRequest {
  seq: number;
  /** 1-based line number of the batch's first line in corpus.jsonl. */
  firstLine: number;
  bytes: Uint8Array;
}

export interface BatchResult {
  seq: number;
  /** Terms first seen by this tokenizer in this batch, in local-id order. */
  newTerms: string[];
  docs: number;
  docIds: Float64Array;
  /** Token count per document after stopwords (bm25s's |d|). */
  docLengths: Uint32Array;
  /** Distinct terms per document; the document's (term, tf) pairs follow in termIds/tfs. */
  distinct: Uint32Array;
  termIds: Uint32Array;
  tfs: Uint16Array;
  /** Byte lengths of title and text per document, in textBytes order. */
  textLengths: Uint32Array;
  textBytes: Uint8Array;
  error?: { line: number; problem: string };
}

const decoder = new TextDecoder("utf-8", { fatal: true });

export class CorpusBatcher {
  /** Lower-cased word → local term id (-1 for a stopword): one table lookup per word in the hot loop. */
  private readonly wordIds = new WordTable();
  /** Stem → local term id (a WordTable too: a Map of fresh strings costs a microsecond a lookup at this size). */
  private readonly stemIds = new WordTable();
  /**
   * Per local term t: at [2t] the last document (in this batcher) that had it, at [2t + 1] its
   * count there; side by side, so counting a word reads one cache line.
   */
  private seen = new Int32Array(2 << 16).fill(-1);
  private docSerial = 0;

  /** Local id of the stem of lower[start, end) (assigning new ids and reporting new stems), or -1 for a stopword. */
  private wordId(lower: string, start: number, end: number, newTerms: string[]): number {
    const known = this.wordIds.get(lower, start, end);
    return known !== MISSING ? known : this.newWord(lower.slice(start, end), newTerms);
  }

  private newWord(w: string, newTerms: string[]): number {
    let id: number;
    if (ENGLISH_STOPWORDS.has(w)) id = -1;
    else {
      const stem = stemEnglish(w);
      id = this.stemIds.get(stem, 0, stem.length);
      if (id === MISSING) {
        id = this.stemIds.size;
        this.stemIds.add(id);
        // Kept for the whole build by the builder's vocabulary.
        newTerms.push(ownCopy(stem));
        if (2 * id >= this.seen.length) {
          const seen = new Int32Array(2 * this.seen.length).fill(-1);
          seen.set(this.seen);
          this.seen = seen;
        }
      }
    }
    this.wordIds.add(id);
    return id;
  }

  tokenize(req: BatchRequest): BatchResult {
    const newTerms: string[] = [];
    let text: string;
    try {
      text = decoder.decode(req.bytes);
    } catch {
      return failed(req.seq, req.firstLine, "not valid UTF-8");
    }
    const lines = text.split("\n");
    if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
    const docIds: number[] = [];
    const docLengths: number[] = [];
    const distinct: number[] = [];
    const termIds: number[] = [];
    const tfs: number[] = [];
    const textLengths: number[] = [];
    const chunks: Buffer[] = [];

    for (let i = 0; i < lines.length; i++) {
      const lineNo = req.firstLine + i;
      const raw = lines[i];
      if (raw.trim() === "") continue;
      let row: unknown;
      try {
        row = JSON.parse(raw);
      } catch (e) {
        return failed(req.seq, lineNo, `not valid JSON (${(e as Error).message})`);
      }
      if (typeof row !== "object" || row === null || Array.isArray(row))
        return failed(req.seq, lineNo, "expected an object {id, title, text}");
      const { id, title, text: body } = row as Record<string, unknown>;
      if (typeof title !== "string") return failed(req.seq, lineNo, '"title" must be a string');
      if (typeof body !== "string") return failed(req.seq, lineNo, '"text" must be a string');
      if (id !== undefined && !(typeof id === "number" && Number.isSafeInteger(id))) {
        return failed(req.seq, lineNo, '"id" must be an integer when present');
      }
      // The recipe indexes "{title}. {text}".
      const serial = this.docSerial++;
      const first = termIds.length;
      let length = 0;
      const lower = `${title}. ${body}`.toLowerCase();
      forEachWordSpan(lower, (start, end) => {
        const id = this.wordId(lower, start, end, newTerms);
        if (id < 0) return;
        length++;
        const seen = this.seen;
        if (seen[2 * id] !== serial) {
          seen[2 * id] = serial;
          seen[2 * id + 1] = 1;
          termIds.push(id);
        } else seen[2 * id + 1]++;
      });
      for (let p = first; p < termIds.length; p++) tfs.push(Math.min(this.seen[2 * termIds[p] + 1], 0xffff));
      docIds.push(id ?? -1);
      docLengths.push(length);
      distinct.push(termIds.length - first);
      const t = Buffer.from(title, "utf8");
      const b = Buffer.from(body, "utf8");
      chunks.push(t, b);
      textLengths.push(t.length, b.length);
    }
    const textBytes = Buffer.concat(chunks);
    return {
      seq: req.seq,
      newTerms,
      docs: docIds.length,
      docIds: Float64Array.from(docIds),
      docLengths: Uint32Array.from(docLengths),
      distinct: Uint32Array.from(distinct),
      termIds: Uint32Array.from(termIds),
      tfs: Uint16Array.from(tfs),
      textLengths: Uint32Array.from(textLengths),
      // A standalone copy so it can be transferred between threads.
      textBytes: new Uint8Array(textBytes.buffer.slice(textBytes.byteOffset, textBytes.byteOffset + textBytes.length)),
    };
  }
}

function failed(seq: number, line: number, problem: string): BatchResult {
  const empty = () => new Uint32Array(0); // separate buffers: each is transferred
  return {
    seq,
    newTerms: [],
    docs: 0,
    docIds: new Float64Array(0),
    docLengths: empty(),
    distinct: empty(),
    termIds: empty(),
    tfs: new Uint16Array(0),
    textLengths: empty(),
    textBytes: new Uint8Array(0),
    error: { line, problem },
  };
}
