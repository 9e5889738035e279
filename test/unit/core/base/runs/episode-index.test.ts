/**
 * episodes.jsonl by byte offset: the index reads each line's light fields only, agrees with
 * readEpisodes (order, first id wins, torn tail skipped, file:line on a bad line), reads a line
 * written in another key order whole, and opening one episode reads back exactly its record. It
 * reads the file a chunk at a time (lines across chunks, lines longer than a chunk), can stop after
 * the list's first rows, and indexes the file as it was when the scan began.
 */
import { strict as assert } from "node:assert";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileFormatError } from "../../../../../src/core/base/errors";
import {
  EpisodeScan,
  HEAD_FIELDS,
  indexEpisodes,
  indexIsCurrent,
  readIndexedEpisode,
  readIndexedEpisodes,
} from "../../../../../src/core/base/runs/episode-index";
import { appendEpisode, episodesPath, readEpisodes } from "../../../../../src/core/base/runs/run-files";
import { fakeRecord } from "./fakes";
import { environmentMetrics } from "../../../../../src/core/envs/catalog";

describe("runs/episode-index", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-index-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("indexes the light fields of every line and reads one episode back whole from its offset", () => {
    const records = ["a", "b", "c"].map((id, i) =>
      fakeRecord(id, {
        question: `Where is «${id}» — née ${i}?`,
        f1: i / 2,
        tokens: [9, 8, 7, i],
        sampled: [1, 0, 1, 1],
      }),
    );
    for (const r of records) appendEpisode(dir, r);
    const index = indexEpisodes(dir, environmentMetrics);
    const pick = (r: object) => Object.fromEntries(HEAD_FIELDS.map((f) => [f, (r as Record<string, unknown>)[f]]));
    assert.deepEqual(
      index.episodes.map((e) => pick(e.head)),
      records.map(pick),
    );
    assert.ok(!("tokens" in index.episodes[0].head), "no token array in the list's rows");
    assert.deepEqual(
      readIndexedEpisode(index, index.episodes[1]),
      records[1],
      "multi-byte text before the line does not shift the offset",
    );
    assert.deepEqual(readIndexedEpisodes(index, [index.episodes[0], index.episodes[2]]), [records[0], records[2]]);
    assert.deepEqual(
      index.episodes.map((e) => e.line),
      [1, 2, 3],
    );
  });

  it("agrees with readEpisodes: first of a repeated id, torn tail skipped, blank lines counted", () => {
    appendEpisode(dir, fakeRecord("a", { f1: 0.25 }));
    appendFileSync(episodesPath(dir), "\n");
    appendEpisode(dir, fakeRecord("a", { f1: 0.75 }));
    appendEpisode(dir, fakeRecord("b"));
    appendFileSync(episodesPath(dir), '{"id":"c","question":"half a li');
    const index = indexEpisodes(dir, environmentMetrics);
    assert.deepEqual(
      index.episodes.map((e) => [e.head.id, e.head.metrics.f1, e.line]),
      [
        ["a", 0.25, 1],
        ["b", 1, 4],
      ],
    );
    assert.deepEqual(
      index.episodes.map((e) => e.head.id),
      readEpisodes(dir, environmentMetrics).map((e) => e.id),
    );
  });

  it("reads a line whose fields come in another order (prompt first) by parsing it whole", () => {
    const r = fakeRecord("x");
    const { prompt, ...rest } = r;
    writeFileSync(episodesPath(dir), JSON.stringify({ prompt, ...rest }) + "\n");
    const index = indexEpisodes(dir, environmentMetrics);
    assert.equal(index.episodes[0].head.question, r.question);
    assert.deepEqual(readIndexedEpisode(index, index.episodes[0]).prompt, prompt);
  });

  it("names file:line and the field for a bad record, and for invalid JSON that is not the tail", () => {
    appendEpisode(dir, fakeRecord("a"));
    appendEpisode(dir, fakeRecord("b", { f1: 7 }));
    assert.throws(
      () => indexEpisodes(dir, environmentMetrics),
      (e: Error) =>
        e instanceof FileFormatError && /episodes\.jsonl:2/.test(e.message) && /"metrics\.f1"/.test(e.message),
    );
    writeFileSync(episodesPath(dir), "{oops\n" + JSON.stringify(fakeRecord("c")) + "\n");
    assert.throws(
      () => indexEpisodes(dir, environmentMetrics),
      (e: Error) => e instanceof FileFormatError && /episodes\.jsonl:1/.test(e.message),
    );
  });

  it("is empty for a run with no episodes yet, and knows when the file changed", () => {
    const empty = indexEpisodes(dir, environmentMetrics);
    assert.equal(empty.episodes.length, 0);
    assert.equal(indexIsCurrent(empty), true);
    appendEpisode(dir, fakeRecord("a"));
    assert.equal(indexIsCurrent(empty), false);
    const one = indexEpisodes(dir, environmentMetrics);
    assert.equal(indexIsCurrent(one), true);
    appendEpisode(dir, fakeRecord("b"));
    assert.equal(indexIsCurrent(one), false);
  });

  it("reads lines across chunks and lines longer than a chunk (1 MiB) as readEpisodes does", () => {
    const records = Array.from({ length: 40 }, (_, i) => {
      const n = i === 7 ? 700_000 : i === 21 ? 1_500_000 : 3_000 + ((i * 7919) % 20_000); // up to about 6 MB a line
      return fakeRecord(`e${i}`, {
        question: `«${i}» ${"é".repeat(i)}?`,
        tokens: Array.from({ length: n }, (_, k) => k % 151_000),
        sampled: [],
      });
    });
    for (const r of records) appendEpisode(dir, r);
    appendFileSync(episodesPath(dir), '{"id":"torn","question":"half');
    const index = indexEpisodes(dir, environmentMetrics);
    assert.equal(index.complete, true);
    assert.deepEqual(
      index.episodes.map((e) => e.head.id),
      readEpisodes(dir, environmentMetrics).map((e) => e.id),
    );
    assert.deepEqual(
      index.episodes.map((e) => e.head.id),
      records.map((r) => r.id),
      "the torn tail is not an episode",
    );
    for (const i of [0, 7, 8, 21, 39])
      assert.deepEqual(
        readIndexedEpisode(index, index.episodes[i]),
        records[i],
        `episode ${i} read back from its offset`,
      );
  });

  it("stops after the first `limit` episodes, and says whether there may be more", () => {
    for (const id of ["a", "b", "c"]) appendEpisode(dir, fakeRecord(id));
    const two = indexEpisodes(dir, environmentMetrics, 2);
    assert.deepEqual([two.episodes.map((e) => e.head.id), two.complete], [["a", "b"], false]);
    const three = indexEpisodes(dir, environmentMetrics, 3);
    assert.deepEqual([three.episodes.length, three.complete], [3, true], "nothing after the third: whole");
    appendEpisode(dir, fakeRecord("a", { f1: 0 }));
    assert.deepEqual(
      indexEpisodes(dir, environmentMetrics, 3).episodes.map((e) => e.head.id),
      ["a", "b", "c"],
      "a repeated id does not count",
    );
  });

  it("indexes the file as it was when the scan began: what is appended meanwhile makes the index stale", () => {
    appendEpisode(dir, fakeRecord("a"));
    const scan = new EpisodeScan(dir, environmentMetrics);
    appendEpisode(dir, fakeRecord("b"));
    while (scan.step());
    assert.deepEqual(
      scan.result.episodes.map((e) => e.head.id),
      ["a"],
    );
    assert.equal(indexIsCurrent(scan.result), false);
    assert.equal(scan.step(), false, "a finished scan stays finished");
  });
});
