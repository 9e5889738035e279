/** The test-split guard: checkTestSplit / loadSplit("test") refuse an edited test.jsonl and say what changed. */
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../../../../../src/core/base/errors";
import { prepareData } from "../../../../../src/core/envs/hotpotqa/prepare";
import { checkTestSplit, loadSplit, readCorpus, readSplitsRecord } from "../../../../../src/core/base/data/splits";
import { requireSharedData } from "../../../../helpers/shared-data";
import { tempDir } from "./helpers";

describe("data: test split guard", function () {
  let dir: ReturnType<typeof tempDir>;
  let out: string;
  let original: string;

  before(async function () {
    const train = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_train_partial.jsonl");
    const dev = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    dir = tempDir("splits");
    out = join(dir.path, "data");
    await prepareData(out, { trainFiles: [train], devFiles: [dev], source: "shared partial files" });
    original = readFileSync(join(out, "test.jsonl"), "utf8");
  });
  after(() => dir?.remove());
  afterEach(() => writeFileSync(join(out, "test.jsonl"), original));

  const refuses = (pattern: RegExp) => (e: unknown) => e instanceof UserError && pattern.test(e.message);

  it("records the hash, counts and source in splits.json and accepts the untouched file", () => {
    const rec = readSplitsRecord(out);
    assert.match(rec.test_sha256, /^[0-9a-f]{16}$/);
    assert.equal(rec.counts.test, 200);
    assert.equal(rec.test_lines.length, 200);
    assert.equal(rec.source, "shared partial files");
    assert.equal(checkTestSplit(out).test_sha256, rec.test_sha256);
    assert.equal(loadSplit(out, "test").length, 200);
  });

  it("names the first edited line and its id", () => {
    const lines = original.split("\n");
    const id = JSON.parse(lines[41]).id as string;
    lines[41] = lines[41].replace('"answers": [', '"answers": ["leaked", ');
    writeFileSync(join(out, "test.jsonl"), lines.join("\n"));
    assert.throws(() => checkTestSplit(out), refuses(new RegExp(`line 42 \\(id ${id}\\) differs`)));
    assert.throws(() => loadSplit(out, "test"), refuses(/changed since "agent-lab prepare"/));
  });

  it("names a changed line count (a dropped last line)", () => {
    const lines = original.trimEnd().split("\n");
    writeFileSync(join(out, "test.jsonl"), lines.slice(0, -1).join("\n") + "\n");
    assert.throws(() => checkTestSplit(out), refuses(/it has 199 lines, the recorded split has 200/));
  });

  it("notices a change that is only a missing final newline", () => {
    writeFileSync(join(out, "test.jsonl"), original.trimEnd());
    assert.throws(() => checkTestSplit(out), refuses(/bytes differ .*final newline/));
  });

  it("says when test.jsonl or splits.json is missing", () => {
    rmSync(join(out, "test.jsonl"));
    assert.throws(() => checkTestSplit(out), refuses(/test\.jsonl: file missing/));
    writeFileSync(join(out, "test.jsonl"), original);
    const splits = readFileSync(join(out, "splits.json"));
    rmSync(join(out, "splits.json"));
    try {
      assert.throws(() => loadSplit(out, "test"), refuses(/splits\.json is missing: run "agent-lab prepare"/));
      assert.equal(loadSplit(out, "val").length, 0, "other splits do not need the record");
    } finally {
      writeFileSync(join(out, "splits.json"), splits);
    }
  });

  it("streams the corpus in id order", async () => {
    let n = 0;
    for await (const p of readCorpus(out)) assert.equal(p.id, n++);
    assert.equal(n, readSplitsRecord(out).counts.corpus);
  });
});
