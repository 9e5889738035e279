import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readCorpusBatches, type CorpusBatch } from "../../../../../src/core/base/search/corpus-chunks";

/**
 * corpus.jsonl in batches: every line exactly once, in order, each batch's first line number (error
 * messages name it), its end offset and the lines read up to there (where a resumed build starts),
 * and chunk ends after exactly `chunkLines` lines.
 */

let tmp: string;
beforeEach(() => (tmp = mkdtempSync(join(tmpdir(), "agent-lab-chunks-"))));
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

const linesOf = (b: CorpusBatch) => Buffer.from(b.bytes).toString("utf8").split("\n").slice(0, -1);

function check(text: string, batchBytes: number, chunkLines: number): CorpusBatch[] {
  const file = join(tmp, "corpus.jsonl");
  writeFileSync(file, text);
  const all = Buffer.from(text);
  const batches = [...readCorpusBatches(file, batchBytes, chunkLines)];
  let offset = 0;
  let lines = 0;
  for (const b of batches) {
    assert.equal(b.firstLine, lines + 1, "first line");
    assert.ok(Buffer.from(b.bytes).equals(all.subarray(offset, b.end)), `bytes ${offset}..${b.end}`);
    const count = all.subarray(offset, b.end).filter((c) => c === 10).length;
    assert.equal(b.linesEnd, lines + count, "lines read");
    // A chunk ends after exactly chunkLines lines (the end of the file ends the last one instead).
    assert.equal(
      b.endsChunk,
      count > 0 && b.linesEnd % chunkLines === 0 && b.bytes.at(-1) === 10,
      `chunk end at ${b.linesEnd}`,
    );
    offset = b.end;
    lines = b.linesEnd;
  }
  assert.equal(offset, all.length, "every byte once");
  return batches;
}

describe("search build: corpus batches", () => {
  it("cuts at line ends, never past a chunk's last line, with first lines, ends and line counts", () => {
    const rows = Array.from({ length: 40 }, (_, i) =>
      i % 7 === 0 ? "" : JSON.stringify({ title: `t${i}`, text: "é".repeat(i) }),
    );
    const text = rows.join("\n") + "\n";
    for (const [batchBytes, chunkLines] of [
      [1 << 20, 1000],
      [1 << 20, 6],
      [50, 6],
      [7, 4],
      [64, 1],
    ])
      check(text, batchBytes, chunkLines);
    // Chunks of 6 lines: batches end exactly at lines 6, 12, …
    const ends = check(text, 50, 6)
      .filter((b) => b.endsChunk)
      .map((b) => b.linesEnd);
    assert.deepEqual(ends, [6, 12, 18, 24, 30, 36]);
  });

  it("a blank line first in a batch counts; a last line without a newline is read", () => {
    const text = "\n\nA\n\nB\nlast";
    const batches = check(text, 2, 2);
    assert.equal(batches.flatMap(linesOf).length, 5);
    assert.equal(batches.at(-1)!.linesEnd, 5);
    assert.equal(Buffer.from(batches.at(-1)!.bytes).toString(), "last");
    assert.equal(batches.at(-1)!.firstLine, 6);
  });

  it("starts at a kept chunk's end: the rest of the file, its line numbers and chunk ends as a whole read has them", () => {
    const text = Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n") + "\n";
    const file = join(tmp, "corpus.jsonl");
    writeFileSync(file, text);
    const whole = [...readCorpusBatches(file, 40, 10)];
    const kept = whole.find((b) => b.endsChunk)!;
    const resumed = [...readCorpusBatches(file, 40, 10, { offset: kept.end, lines: kept.linesEnd })];
    const after = whole.slice(whole.indexOf(kept) + 1);
    assert.equal(resumed[0].firstLine, kept.linesEnd + 1);
    assert.equal(resumed.map((b) => Buffer.from(b.bytes).toString()).join(""), text.slice(kept.end));
    const chunkEnds = (bs: CorpusBatch[]) => bs.filter((b) => b.endsChunk).map((b) => [b.end, b.linesEnd]);
    assert.deepEqual(chunkEnds(resumed), chunkEnds(after));
    assert.deepEqual(chunkEnds(resumed), [
      [text.indexOf("line 20"), 20],
      [text.length, 30],
    ]);
    for (let i = 1; i < resumed.length; i++) assert.equal(resumed[i].firstLine, resumed[i - 1].linesEnd + 1);
  });
});
