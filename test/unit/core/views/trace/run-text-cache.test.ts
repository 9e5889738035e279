/**
 * The run's text cache beside the run: a saved full-text index answers like the one it was saved
 * from; the cache is read back only while episodes.jsonl has the size and mtime it was made for and
 * with the same tokenizer; it is not written while a writer holds the run or when the file changed
 * during the work; a damaged file is ignored.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appendEpisode } from "../../../../../src/core/base/runs/run-files";
import { RUN_FILES, runFile } from "../../../../../src/core/base/runs/run-folder";
import { DRIFT_CHECK_VERSION } from "../../../../../src/core/views/trace/drift";
import { RunSearch } from "../../../../../src/core/views/trace/run-search";
import {
  episodesStamp,
  readTextCache,
  TEXT_CACHE_FORMAT,
  writeTextCache,
  type RunTextCache,
} from "../../../../../src/core/views/trace/run-text-cache";
import { fakeRecord } from "../../base/runs/fakes";

describe("trace/run-text-cache", () => {
  let dir: string;
  const records = [
    fakeRecord("a", { question: "Who founded Kel Mor Works?" }),
    fakeRecord("b", { question: "Where was Dar Holt born?", answers: ["Vinbur"] }),
  ];
  const results = [
    ["<result>Kel Mor Works was founded by Tal Fen.</result>"],
    ["<result>Dar Holt was born in Vinbur.</result>"],
  ];
  const cacheFor = (search: RunSearch): RunTextCache => ({
    format: TEXT_CACHE_FORMAT,
    episodes: episodesStamp(dir),
    tokenizer: "qwen3@x",
    gold: { a: "found", b: "missing" },
    drift: null,
    search: search.toJSON(),
  });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-textcache-"));
    for (const r of records) appendEpisode(dir, r);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("drops drift counts an older drift check saved (the gold and the index stay)", () => {
    const search = new RunSearch();
    search.add(records, results);
    const counts = {
      checked: 2,
      failed: 0,
      templateDrift: 2,
      nonCanonical: 0,
      nonCanonicalTokens: 0,
      emittedSpecial: 0,
    };
    assert.equal(writeTextCache(dir, { ...cacheFor(search), drift: counts }), true);
    assert.deepEqual(readTextCache(dir, "qwen3@x")!.drift, counts, "this check's counts are read back");
    const file = runFile(dir, "textIndex");
    const saved = JSON.parse(readFileSync(file, "utf8")) as RunTextCache;
    assert.equal(saved.drift_check, DRIFT_CHECK_VERSION);
    const { drift_check: _older, ...old } = saved;
    writeFileSync(file, JSON.stringify(old));
    const back = readTextCache(dir, "qwen3@x");
    assert.ok(back, "the rest of an older cache is still used");
    assert.equal(back.drift, null, "counted again by this check");
    assert.deepEqual(back.gold, { a: "found", b: "missing" });
  });

  it("reads back the counts a cache on disk holds from this check (drift-2), and counts again for any other", () => {
    const search = new RunSearch();
    search.add(records, results);
    const counts = {
      checked: 2,
      failed: 0,
      templateDrift: 0,
      nonCanonical: 1,
      nonCanonicalTokens: 3,
      emittedSpecial: 0,
    };
    const file = runFile(dir, "textIndex");
    // As a run folder written by an earlier build of this check holds it (bumping the check's version
    // is meant to drop these counts: then this line changes with it).
    const onDisk = (drift_check: string) =>
      writeFileSync(file, JSON.stringify({ ...cacheFor(search), drift: counts, drift_check }));
    onDisk("drift-2");
    assert.deepEqual(readTextCache(dir, "qwen3@x")!.drift, counts);
    for (const other of ["drift-1", ""]) {
      onDisk(other);
      assert.equal(readTextCache(dir, "qwen3@x")!.drift, null, `counted again after check "${other}"`);
    }
  });

  it("saves the index in a hidden run file and reads it back answering the same queries", async () => {
    const search = new RunSearch();
    search.add(records, results);
    assert.ok(RUN_FILES.textIndex.startsWith("."), "a hidden file: not one of the run's own files");
    assert.equal(writeTextCache(dir, cacheFor(search)), true);
    const back = readTextCache(dir, "qwen3@x");
    assert.ok(back);
    assert.deepEqual(back.gold, { a: "found", b: "missing" });
    const loaded = new RunSearch(back.search);
    assert.equal(loaded.size, 2);
    for (const q of ["Tal Fen", "vinbur", "Kel", "founded", "nothing-like-this"])
      assert.deepEqual(loaded.search(q), search.search(q), q);
    assert.deepEqual(loaded.search("Tal Fen"), ["a"], "result text is searchable");
    const restored = await RunSearch.restore(back.search);
    assert.deepEqual(
      restored.search("Dar Holt"),
      search.search("Dar Holt"),
      "the panel's chunked restore answers the same",
    );
    assert.equal(restored.size, 2);
  });

  it("is stale once episodes.jsonl changes (an append, or a rewrite of the same size), or for another tokenizer", () => {
    const search = new RunSearch();
    search.add(records, results);
    writeTextCache(dir, cacheFor(search));
    assert.equal(readTextCache(dir, "another-tokenizer"), undefined);
    const later = new Date(Date.now() + 5000);
    utimesSync(runFile(dir, "episodes"), later, later);
    assert.equal(readTextCache(dir, "qwen3@x"), undefined, "mtime changed");
    writeTextCache(dir, cacheFor(search));
    assert.ok(readTextCache(dir, "qwen3@x"));
    appendEpisode(dir, fakeRecord("c"));
    assert.equal(readTextCache(dir, "qwen3@x"), undefined, "size changed");
  });

  it("is not written for an older file or while a writer holds the run, and a damaged file is ignored", () => {
    const search = new RunSearch();
    search.add(records, results);
    const old = cacheFor(search);
    appendEpisode(dir, fakeRecord("c"));
    assert.equal(writeTextCache(dir, old), false, "the work covered a file that has grown since");
    writeFileSync(runFile(dir, "lock"), "{}");
    assert.equal(writeTextCache(dir, cacheFor(search)), false, "an eval is still appending");
    rmSync(runFile(dir, "lock"));
    writeFileSync(runFile(dir, "textIndex"), "{not json");
    assert.equal(readTextCache(dir, "qwen3@x"), undefined);
  });
});
