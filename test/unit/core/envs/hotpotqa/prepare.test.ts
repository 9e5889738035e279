/**
 * prepare against the recipe's logic in Python, in the same test run: python3 runs a small
 * re-statement of prep_data.py (first-appearance corpus, random.Random(0) shuffles, json.dumps with
 * ensure_ascii=False) over the same real HotpotQA records, and every output file must be identical
 * byte for byte. Also: every input format gives the same bytes, bad input is reported as file:line,
 * and a failed prepare leaves the previous data folder untouched.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileFormatError } from "../../../../../src/core/base/errors";
import { prepareData } from "../../../../../src/core/envs/hotpotqa/prepare";
import { checkTestSplit, loadCorpus, loadSplit } from "../../../../../src/core/base/data/splits";
import { requireSharedData } from "../../../../helpers/shared-data";
import {
  nastyRow,
  readRows,
  runPython,
  skipWithoutPython,
  tempDir,
  writeHubParquet,
  writeJsonl,
  type RawRow,
} from "../../base/data/helpers";

const PYTHON_PREP = `
import json, random, sys
train_files, dev_files, out = json.loads(sys.argv[1])

def rows(files):
    for path in files:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)

def write(path, items):
    with open(path, "w", encoding="utf-8") as f:
        for item in items:
            f.write(json.dumps(item, ensure_ascii=False) + "\\n")

def question(r):
    return {"id": r["id"], "question": r["question"], "answers": [r["answer"]], "type": r["type"], "level": r["level"]}

train, dev = list(rows(train_files)), list(rows(dev_files))
corpus, seen = [], set()
for split in (train, dev):
    for r in split:
        for title, sentences in r["context"]:
            if title not in seen:
                seen.add(title)
                corpus.append({"id": len(corpus), "title": title, "text": "".join(sentences).strip()})
write(out + "/corpus.jsonl", corpus)
rng = random.Random(0)
dev_rows = [question(r) for r in dev]
rng.shuffle(dev_rows)
write(out + "/test.jsonl", dev_rows[:500])
write(out + "/val.jsonl", dev_rows[500:700])
train_rows = [question(r) for r in train]
rng.shuffle(train_rows)
write(out + "/train.jsonl", train_rows)
`;

const OUTPUTS = ["corpus.jsonl", "train.jsonl", "val.jsonl", "test.jsonl"];

function assertSameFiles(mine: string, reference: string): void {
  for (const name of OUTPUTS) {
    const a = readFileSync(join(mine, name));
    const b = readFileSync(join(reference, name));
    if (!a.equals(b)) {
      const la = a.toString("utf8").split("\n");
      const lb = b.toString("utf8").split("\n");
      const i = la.findIndex((l, k) => l !== lb[k]);
      assert.fail(
        `${name} differs from Python at line ${i + 1}:\n  ts: ${la[i]?.slice(0, 200)}\n  py: ${lb[i]?.slice(0, 200)}`,
      );
    }
  }
}

/** 800 dev rows (so val is filled and 100 are left over): the real 200 four times with new ids, plus a nasty one. */
function bigDev(devRows: RawRow[]): RawRow[] {
  const out: RawRow[] = [];
  for (let copy = 0; copy < 4; copy++) {
    for (const r of devRows)
      out.push({ ...r, id: `${r.id}-${copy}`, question: copy ? `${r.question} (${copy})` : r.question });
  }
  out.splice(123, 0, nastyRow("nasty-dev"));
  return out;
}

describe("data: prepare", function () {
  let dir: ReturnType<typeof tempDir>;
  let trainFile: string;
  let devFile: string;
  let trainRows: RawRow[];
  let devRows: RawRow[];

  before(function () {
    trainFile = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_train_partial.jsonl");
    devFile = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    trainRows = readRows(trainFile);
    devRows = readRows(devFile);
    dir = tempDir("prepare");
  });
  after(() => dir?.remove());

  it("writes the same bytes as the recipe's Python on the real partial train/dev files", async function () {
    skipWithoutPython(this);
    const mine = join(dir.path, "real-ts");
    const ref = join(dir.path, "real-py");
    const result = await prepareData(mine, { trainFiles: [trainFile], devFiles: [devFile], source: "test" });
    assert.deepEqual(result.counts, { corpus: result.counts.corpus, train: 110, val: 0, test: 200 });
    assert.match(result.notes.join(" "), /only 200 questions/);
    runPython("import os,sys; os.makedirs(sys.argv[1])", [ref]);
    runPython(PYTHON_PREP, [JSON.stringify([[trainFile], [devFile], ref])]);
    assertSameFiles(mine, ref);
    assert.ok(result.counts.corpus > 2000, `corpus has only ${result.counts.corpus} paragraphs`);
  });

  it("matches Python with 801 dev rows (test 500, val 200), two train files and nasty strings", async function () {
    skipWithoutPython(this);
    const train1 = writeJsonl(join(dir.path, "train-a.jsonl"), trainRows.slice(0, 60));
    const train2 = writeJsonl(join(dir.path, "train-b.jsonl"), [...trainRows.slice(60), nastyRow("nasty-train")]);
    const dev = writeJsonl(join(dir.path, "dev-big.jsonl"), bigDev(devRows));
    const mine = join(dir.path, "big-ts");
    const ref = join(dir.path, "big-py");
    const result = await prepareData(mine, { trainFiles: [train1, train2], devFiles: [dev], source: "test" });
    assert.deepEqual([result.counts.train, result.counts.val, result.counts.test], [111, 200, 500]);
    assert.deepEqual(result.notes, []);
    runPython("import os,sys; os.makedirs(sys.argv[1])", [ref]);
    runPython(PYTHON_PREP, [JSON.stringify([[train1, train2], [dev], ref])]);
    assertSameFiles(mine, ref);
    // the nasty record really went through: its strip() differs from JavaScript's trim()
    const corpus = await loadCorpus(mine);
    const p = corpus.find((c) => c.title === "Title \u0085 with \u00a0 spaces")!;
    assert.equal(p.text, "leading middle trailing"); // Python strips \x1c \x85 \u3000 \u2029 \x1f \u205f
    assert.equal(corpus.find((c) => c.title === "BOM \ufeff title")!.text, "\ufeff kept BOM \ufeff");
    // loadSplit reads what was written, and the test split passes its own hash check
    assert.equal(loadSplit(mine, "val").length, 200);
    assert.equal(loadSplit(mine, "test").length, 500);
    assert.equal(checkTestSplit(mine).test_sha256, result.testSha256.slice(0, 16));
  });

  it("gives identical bytes from the official JSON list, the hub row shape and JSONL", async function () {
    // escapes, controls and U+2028 inside strings must not confuse the streaming list reader
    const train = [...trainRows.slice(0, 50), nastyRow("nasty-1"), ...trainRows.slice(50)];
    const base = join(dir.path, "fmt-jsonl");
    await prepareData(base, {
      trainFiles: [writeJsonl(join(dir.path, "train-nasty.jsonl"), train)],
      devFiles: [devFile],
      source: "test",
    });
    // official: a (pretty-printed) JSON list with "_id" and [title, sentences] pairs
    const official = join(dir.path, "train-official.json");
    writeFileSync(
      official,
      JSON.stringify(
        train.map(({ id, ...rest }) => ({ _id: id, ...rest })),
        null,
        1,
      ),
    );
    // hub shape: context {title: [...], sentences: [[...]]}
    const hub = writeJsonl(
      join(dir.path, "dev-hub.jsonl"),
      devRows.map((r) => ({
        ...r,
        context: { title: r.context.map((c) => c[0]), sentences: r.context.map((c) => c[1]) },
      })),
    );
    const other = join(dir.path, "fmt-other");
    await prepareData(other, { trainFiles: [official], devFiles: [hub], source: "test" });
    assertSameFiles(other, base);
  });

  it("reports bad input as FileFormatError naming file:line", async function () {
    const cases: [string, string, RegExp][] = [
      [
        "malformed.jsonl",
        `${JSON.stringify(devRows[0])}\n\n{"id": "x", "question": \n`,
        /malformed\.jsonl:3: not valid JSON/,
      ],
      [
        "no-answer.jsonl",
        `${JSON.stringify(devRows[0])}\n${JSON.stringify({ ...devRows[1], answer: undefined })}\n`,
        /no-answer\.jsonl:2: missing "answer" string/,
      ],
      [
        "no-id.jsonl",
        `${JSON.stringify({ ...devRows[0], id: undefined })}\n`,
        /no-id\.jsonl:1: missing "id" \(or "_id"\) string/,
      ],
      [
        "bad-context.jsonl",
        `${JSON.stringify({ ...devRows[0], context: [["title only"]] })}\n`,
        /bad-context\.jsonl:1: "context"\[0\] is not a \[title, \[sentences\]\] pair/,
      ],
      ["empty.jsonl", "", /empty\.jsonl:1: no HotpotQA records/],
      [
        "list.json",
        `[\n${JSON.stringify(devRows[0])},\n${JSON.stringify({ ...devRows[1], question: 7 })}\n]`,
        /list\.json:3: missing "question" string/,
      ],
      ["unclosed.json", `[\n${JSON.stringify(devRows[0])},\n`, /unclosed\.json:3: the JSON list is not closed/],
    ];
    for (const [name, content, pattern] of cases) {
      const bad = join(dir.path, name);
      writeFileSync(bad, content);
      await assert.rejects(
        prepareData(join(dir.path, `out-${name}`), { trainFiles: [trainFile], devFiles: [bad], source: "test" }),
        (e: unknown) => e instanceof FileFormatError && pattern.test(e.message),
        name,
      );
    }
    await assert.rejects(
      prepareData(join(dir.path, "out-missing"), {
        trainFiles: [join(dir.path, "nope.jsonl")],
        devFiles: [devFile],
        source: "test",
      }),
      /nope\.jsonl: file not found/,
    );
  });

  it("reports a bad parquet file: a row without a field, a missing column, not parquet at all", async function () {
    const rows = devRows.slice(0, 5).map((r, i) => (i === 2 ? { ...r, answer: undefined } : r)) as RawRow[];
    const cases: [string, () => Promise<unknown>, RegExp][] = [
      [
        "null-answer.parquet",
        () => writeHubParquet(join(dir.path, "null-answer.parquet"), rows),
        /null-answer\.parquet: row 3: missing "answer" string/,
      ],
      [
        "no-context.parquet",
        () =>
          writeHubParquet(join(dir.path, "no-context.parquet"), devRows.slice(0, 5), [
            "id",
            "question",
            "answer",
            "type",
            "level",
          ]),
        /no-context\.parquet: parquet file has no column "context"/,
      ],
      [
        "text.parquet",
        async () => writeFileSync(join(dir.path, "text.parquet"), "id,question\n1,x\n"),
        /text\.parquet: not a readable parquet file/,
      ],
    ];
    for (const [name, make, pattern] of cases) {
      await make();
      await assert.rejects(
        prepareData(join(dir.path, `out-${name}`), {
          trainFiles: [trainFile],
          devFiles: [join(dir.path, name)],
          source: "test",
        }),
        (e: unknown) => e instanceof FileFormatError && pattern.test(e.message),
        name,
      );
    }
  });

  it("leaves an earlier good data folder untouched when a prepare fails", async function () {
    const out = join(dir.path, "keep");
    await prepareData(out, { trainFiles: [trainFile], devFiles: [devFile], source: "test" });
    const before = Object.fromEntries(readdirSync(out).map((n) => [n, readFileSync(join(out, n))]));
    const bad = join(dir.path, "late-error.jsonl");
    // the error is on the last line, after the corpus has been half written
    writeFileSync(bad, readFileSync(devFile, "utf8") + "{not json}\n");
    await assert.rejects(
      prepareData(out, { trainFiles: [trainFile], devFiles: [bad], source: "test" }),
      /late-error\.jsonl:201: not valid JSON/,
    );
    assert.deepEqual(readdirSync(out).sort(), Object.keys(before).sort(), "no temporary folder left behind");
    for (const [name, bytes] of Object.entries(before))
      assert.ok(readFileSync(join(out, name)).equals(bytes), `${name} changed`);
    assert.ok(existsSync(join(out, "splits.json")));
    checkTestSplit(out);
  });

  it("removes the temp folder a killed prepare left behind, and only when its process is gone", async function () {
    const out = join(dir.path, "abandoned");
    const dead = join(out, ".prepare-999999999-abc"); // no such process
    const live = join(out, `.prepare-${process.pid}-xyz`); // this process: maybe a concurrent prepare
    mkdirSync(dead, { recursive: true });
    mkdirSync(live, { recursive: true });
    writeFileSync(join(dead, "corpus.jsonl"), "half written");
    await prepareData(out, { trainFiles: [trainFile], devFiles: [devFile], source: "test" });
    assert.ok(!existsSync(dead));
    assert.ok(existsSync(live));
  });
});
