/**
 * readJsonlLines decodes a file a chunk of whole lines at a time (a 37 MB episodes.jsonl took a
 * third of the CPU of decoding it into one string): what it gives, and how it refuses, must be
 * what parsing the file's whole text gives — lines across chunk boundaries, inside a multi-byte
 * character, a line longer than a chunk, a byte-order mark, CRLF, invalid UTF-8, torn tails.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileFormatError } from "../../../../../src/core/base/errors";
import { parseJsonlLines, readJsonlLines, type ReadJsonlOptions } from "../../../../../src/core/base/util/jsonl";
import { mulberry32 } from "../../../../../src/core/base/util/mulberry32";

type Outcome = { rows: unknown } | { error: string };

function outcome(read: () => unknown): Outcome {
  try {
    return { rows: read() };
  } catch (e) {
    assert.ok(e instanceof FileFormatError, `a FileFormatError, not ${String(e)}`);
    return { error: e.message };
  }
}

/** Lines of random lengths with one-, two-, three- and four-byte characters: chunk ends fall inside them. */
function manyLines(bytes: number, seed: number): string {
  const random = mulberry32(seed);
  // JSON string content as written: characters of each UTF-8 length, and escapes.
  const pieces = ["a", "é", "日本", "🙂", "\\n", "\\u00e9", " "];
  const lines: string[] = [];
  let total = 0;
  while (total < bytes) {
    let text = "";
    const n = Math.floor(random() * 3000);
    for (let i = 0; i < n; i++) text += pieces[Math.floor(random() * pieces.length)];
    const line = `{"id":"q${lines.length}","text":"${text}","tokens":[1,2,3]}`;
    lines.push(line);
    total += Buffer.byteLength(line) + 1;
  }
  return lines.join("\n") + "\n";
}

describe("JSONL read a chunk at a time", () => {
  let dir: string;
  let k = 0;
  before(() => (dir = mkdtempSync(join(tmpdir(), "agent-lab-jsonl-chunks-"))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** readJsonlLines of these bytes against parseJsonlLines of the file's text read whole. */
  function same(bytes: Buffer | string, options: ReadJsonlOptions = {}): Outcome {
    const file = join(dir, `f${k++}.jsonl`);
    writeFileSync(file, bytes);
    const chunked = outcome(() => readJsonlLines(file, options));
    const whole = outcome(() => parseJsonlLines(readFileSync(file, "utf8"), file, options));
    assert.deepEqual(chunked, whole);
    return chunked;
  }

  it("gives the same rows as the whole text across 1 MB chunk boundaries, multi-byte characters cut by them included", () => {
    for (const seed of [1, 2, 3]) {
      const r = same(manyLines(3.5 * (1 << 20), seed));
      assert.ok("rows" in r && (r.rows as unknown[]).length > 500);
    }
  });

  it("reads a line longer than a chunk", () => {
    const long = JSON.stringify({ id: "long", tokens: Array.from({ length: 600_000 }, (_, i) => i) });
    assert.ok(long.length > 2 * (1 << 20));
    const r = same(`{"id":"a"}\n${long}\n{"id":"b"}`);
    assert.deepEqual("rows" in r && (r.rows as { value: { id: string } }[]).map((x) => x.value.id), ["a", "long", "b"]);
  });

  it("the same for a byte-order mark, CRLF, blank and space-only lines, invalid UTF-8 and empty files", () => {
    same(`\ufeff{"a":1}\n{"a":2}\n`);
    same(`{"a":1}\r\n\r\n  \n{"a":2}\r\n`);
    same(
      Buffer.concat([
        Buffer.from('{"a":"x'),
        Buffer.from([0xc3]),
        Buffer.from('"}\n{"a":"'),
        Buffer.from([0xff, 0xe6, 0x97]),
        Buffer.from('"}\n'),
      ]),
    );
    same(Buffer.concat([Buffer.from('{"a":1}\n'), Buffer.from([0xe6, 0x97])]));
    same("");
    same("\n");
    same("\n\n  \n");
  });

  it("refuses a bad line where the whole text's reading refuses it, and skips a torn tail where it does", () => {
    const torn = '{"a":1}\n{"a":2}\n{"a":3';
    for (const tolerateTornTail of [false, true]) {
      same(torn, { tolerateTornTail });
      same(`${torn}\n`, { tolerateTornTail });
      same(`${torn}\n  \n`, { tolerateTornTail });
      same(`${torn}\n  `, { tolerateTornTail });
      same('{"a":1}\n{oops}\n{"a":3}\n', { tolerateTornTail });
      same('{"a":1}\n{oops}\n\n{"a":3}', { tolerateTornTail });
      same('{"a":1}\n{"a":2}', { tolerateTornTail });
    }
    assert.deepEqual(same(torn, { tolerateTornTail: true }), {
      rows: [
        { value: { a: 1 }, line: 1 },
        { value: { a: 2 }, line: 2 },
      ],
    });
    const bad = same('{"a":1}\n\n{oops}\n{"a":3}\n', { tolerateTornTail: true });
    assert.ok("error" in bad && /f\d+\.jsonl:3: not valid JSON/.test(bad.error));
  });
});
