/**
 * episodes.jsonl by byte offset: the index reads each line's light fields only, agrees with
 * readEpisodes (order, first id wins, torn tail skipped, file:line on a bad line), reads a line
 * written in another key order whole, and opening one episode reads back exactly its record.
 */
import { strict as assert } from "node:assert";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileFormatError } from "../../../../src/core/errors";
import { HEAD_FIELDS, indexEpisodes, indexIsCurrent, readIndexedEpisode, readIndexedEpisodes } from "../../../../src/core/runs/episode-index";
import { appendEpisode, episodesPath, readEpisodes } from "../../../../src/core/runs/run-files";
import { fakeRecord } from "./fakes";

describe("runs/episode-index", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-index-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("indexes the light fields of every line and reads one episode back whole from its offset", () => {
    const records = ["a", "b", "c"].map((id, i) => fakeRecord(id, { question: `Where is «${id}» — née ${i}?`, f1: i / 2, tokens: [9, 8, 7, i], sampled: [1, 0, 1, 1] }));
    for (const r of records) appendEpisode(dir, r);
    const index = indexEpisodes(dir);
    const pick = (r: object) => Object.fromEntries(HEAD_FIELDS.map((f) => [f, (r as Record<string, unknown>)[f]]));
    assert.deepEqual(index.episodes.map((e) => pick(e.head)), records.map(pick));
    assert.ok(!("tokens" in index.episodes[0].head), "no token array in the list's rows");
    assert.deepEqual(readIndexedEpisode(index, index.episodes[1]), records[1], "multi-byte text before the line does not shift the offset");
    assert.deepEqual(readIndexedEpisodes(index, [index.episodes[0], index.episodes[2]]), [records[0], records[2]]);
    assert.deepEqual(index.episodes.map((e) => e.line), [1, 2, 3]);
  });

  it("agrees with readEpisodes: first of a repeated id, torn tail skipped, blank lines counted", () => {
    appendEpisode(dir, fakeRecord("a", { f1: 0.25 }));
    appendFileSync(episodesPath(dir), "\n");
    appendEpisode(dir, fakeRecord("a", { f1: 0.75 }));
    appendEpisode(dir, fakeRecord("b"));
    appendFileSync(episodesPath(dir), '{"id":"c","question":"half a li');
    const index = indexEpisodes(dir);
    assert.deepEqual(index.episodes.map((e) => [e.head.id, e.head.f1, e.line]), [["a", 0.25, 1], ["b", 1, 4]]);
    assert.deepEqual(index.episodes.map((e) => e.head.id), readEpisodes(dir).map((e) => e.id));
  });

  it("reads a line whose fields come in another order (prompt first) by parsing it whole", () => {
    const r = fakeRecord("x");
    const { prompt, ...rest } = r;
    writeFileSync(episodesPath(dir), JSON.stringify({ prompt, ...rest }) + "\n");
    const index = indexEpisodes(dir);
    assert.equal(index.episodes[0].head.question, r.question);
    assert.deepEqual(readIndexedEpisode(index, index.episodes[0]).prompt, prompt);
  });

  it("names file:line and the field for a bad record, and for invalid JSON that is not the tail", () => {
    appendEpisode(dir, fakeRecord("a"));
    appendEpisode(dir, fakeRecord("b", { f1: 7 }));
    assert.throws(() => indexEpisodes(dir), (e: Error) => e instanceof FileFormatError && /episodes\.jsonl:2/.test(e.message) && /"f1"/.test(e.message));
    writeFileSync(episodesPath(dir), "{oops\n" + JSON.stringify(fakeRecord("c")) + "\n");
    assert.throws(() => indexEpisodes(dir), (e: Error) => e instanceof FileFormatError && /episodes\.jsonl:1/.test(e.message));
  });

  it("is empty for a run with no episodes yet, and knows when the file changed", () => {
    const empty = indexEpisodes(dir);
    assert.equal(empty.episodes.length, 0);
    assert.equal(indexIsCurrent(empty), true);
    appendEpisode(dir, fakeRecord("a"));
    assert.equal(indexIsCurrent(empty), false);
    const one = indexEpisodes(dir);
    assert.equal(indexIsCurrent(one), true);
    appendEpisode(dir, fakeRecord("b"));
    assert.equal(indexIsCurrent(one), false);
  });
});
