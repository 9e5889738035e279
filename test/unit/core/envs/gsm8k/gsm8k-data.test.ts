/**
 * GSM8K records and splits on the real shared records: JSONL and parquet read the same, the hub
 * download (a local HTTP server speaking the hub's tree and resolve URLs) gives the same records,
 * the splits match Python's random.Random(0).shuffle, and the test split is locked by its hash.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import {
  OFFICIAL_TEST_SHA256_PREFIX,
  VAL_SIZE,
  downloadGsm8k,
  loadGsm8kSplit,
  readGsm8kRecords,
  writeGsm8kSplits,
  type Gsm8kRecord,
} from "../../../../../src/core/envs/gsm8k";
import { requireSharedData } from "../../../../helpers/shared-data";
import { runPython, tempDir } from "../../base/data/helpers";

async function writeParquet(file: string, rows: Gsm8kRecord[]): Promise<Buffer> {
  const { parquetWriteBuffer } = await import("hyparquet-writer");
  const bytes = Buffer.from(
    parquetWriteBuffer({
      columnData: [
        { name: "question", data: rows.map((r) => r.question) },
        { name: "answer", data: rows.map((r) => r.answer) },
      ],
      rowGroupSize: 500,
    }),
  );
  writeFileSync(file, bytes);
  return bytes;
}

describe("gsm8k data: records and splits (real shared records)", function () {
  let dir: ReturnType<typeof tempDir>;
  let train: Gsm8kRecord[];
  let test: Gsm8kRecord[];
  let trainFile: string;
  before(async function () {
    trainFile = requireSharedData(this, "gsm8k", "train.jsonl");
    const testFile = requireSharedData(this, "gsm8k", "test.jsonl");
    dir = tempDir("gsm8k");
    train = await readGsm8kRecords(trainFile);
    test = await readGsm8kRecords(testFile);
  });
  after(() => dir?.remove());

  it("reads 7,473 train and 1,319 test records", () => {
    assert.equal(train.length, 7473);
    assert.equal(test.length, 1319);
    assert.ok(train[0].question.startsWith("Natalia sold clips"));
  });

  it("writes train/val/test.jsonl with ids; val is Python's random.Random(0).shuffle of train, first 500; test is locked", async () => {
    const out = join(dir.path, "splits");
    const r = await writeGsm8kSplits(out, train, test, "shared files");
    assert.deepEqual(r.counts, { train: 7473 - VAL_SIZE, val: VAL_SIZE, test: 1319 });
    assert.equal(r.officialTest, true);
    assert.ok(r.testSha256.startsWith(OFFICIAL_TEST_SHA256_PREFIX));
    const val = loadGsm8kSplit(out, "val");
    const rest = loadGsm8kSplit(out, "train");
    const tests = loadGsm8kSplit(out, "test");
    assert.equal(tests[7].id, "test-0007");
    assert.equal(tests[7].question, test[7].question);
    assert.equal(new Set([...val, ...rest].map((q) => q.id)).size, 7473, "val and train are disjoint and cover train");
    const py = runPython(
      "import random; l=list(range(7473)); random.Random(0).shuffle(l); print(' '.join(map(str, l)))",
    );
    if (py !== undefined) {
      const order = py.trim().split(" ").map(Number);
      assert.deepEqual(
        [...val, ...rest].map((q) => Number(q.id.slice(6))),
        order,
      );
    }
    assert.equal(rest[0].reference, rest[0].answer.split("#### ").pop()!.replace(/,/g, ""));

    // an edited test split is refused, naming the line
    const file = join(out, "test.jsonl");
    const lines = readFileSync(file, "utf8").split("\n");
    lines[2] = lines[2].replace('"reference": "', '"reference": "1');
    writeFileSync(file, lines.join("\n"));
    assert.throws(() => loadGsm8kSplit(out, "test"), /line 3 \(id test-0002\) differs/);
  });

  it("parquet (the hub's format) reads the same records as JSONL", async () => {
    const file = join(dir.path, "test.parquet");
    await writeParquet(file, test);
    assert.deepEqual(await readGsm8kRecords(file), test);
  });

  it("downloads openai/gsm8k (main) from the hub through HF_ENDPOINT into the cache", async () => {
    const served = new Map<string, Buffer>([
      ["train-00000-of-00001.parquet", await writeParquet(join(dir.path, "t.parquet"), train.slice(0, 300))],
      ["test-00000-of-00001.parquet", await writeParquet(join(dir.path, "s.parquet"), test.slice(0, 200))],
    ]);
    const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
    const paths: string[] = [];
    const server: Server = createServer((req, res) => {
      const path = decodeURIComponent(new URL(req.url!, "http://x").pathname);
      paths.push(path);
      if (path === "/api/datasets/openai/gsm8k/tree/main/main") {
        const entries = [...served].map(([name, b]) => ({
          type: "file",
          path: `main/${name}`,
          size: b.length,
          lfs: { oid: sha(b), size: b.length },
        }));
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(entries));
        return;
      }
      const body = served.get(path.replace("/datasets/openai/gsm8k/resolve/main/main/", ""));
      if (!body) return void res.writeHead(404).end();
      res.writeHead(200, { "content-length": String(body.length) }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const got = await downloadGsm8k({ endpoint, cacheDir: join(dir.path, "cache") });
      assert.deepEqual(await readGsm8kRecords(got.test[0]), test.slice(0, 200));
      assert.deepEqual(await readGsm8kRecords(got.train[0]), train.slice(0, 300));
      const again = paths.length;
      await downloadGsm8k({ endpoint, cacheDir: join(dir.path, "cache") });
      assert.equal(paths.length, again + 1, "second run: only the listing, files come from the cache");
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it("bad records name file:line and the missing field; blank lines keep line numbers exact", async () => {
    const file = join(dir.path, "bad.jsonl");
    writeFileSync(file, readFileSync(trainFile, "utf8").split("\n").slice(0, 2).join("\n") + "\n\n");
    appendFileSync(file, JSON.stringify({ question: "q" }) + "\n");
    await assert.rejects(readGsm8kRecords(file), /bad\.jsonl:4: missing "answer" string/);
    writeFileSync(file, JSON.stringify({ question: "q", answer: "no final line" }) + "\n");
    await assert.rejects(readGsm8kRecords(file), /bad\.jsonl:1: "answer" has no "#### N" final answer/);
  });
});
