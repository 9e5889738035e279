/**
 * The hub download against a real local HTTP server (node:http on 127.0.0.1) that speaks the parts of
 * the Hugging Face API prepare uses: the repository tree listing, `resolve` URLs that redirect to
 * file storage, Range requests. The parquet files are written at test time from the real shared
 * HotpotQA records (hyparquet-writer, the hub's nested `context` shape). Covers: a connection dropped
 * mid-file that resumes, a partial file left by an earlier run that resumes, HF_ENDPOINT/HF_TOKEN,
 * the cache, and that parquet input gives the same bytes as the same records from JSONL.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { downloadHotpotQA } from "../../../../../src/core/envs/hotpotqa/hub";
import { prepareData } from "../../../../../src/core/envs/hotpotqa/prepare";
import { run as prepareCli } from "../../../../../src/cli/prepare";
import { requireSharedData } from "../../../../helpers/shared-data";
import { capturedOutput, readRows, tempDir, writeHubParquet } from "./helpers";

interface FakeHub {
  url: string;
  requests: { path: string; range?: string; auth?: string }[];
  /** Files whose next download is cut off after this many bytes. */
  cutOnce: Map<string, number>;
  close(): Promise<void>;
}

async function startFakeHub(files: Map<string, Buffer>): Promise<FakeHub> {
  const requests: FakeHub["requests"] = [];
  const cutOnce = new Map<string, number>();
  const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const path = decodeURIComponent(new URL(req.url!, "http://x").pathname);
    requests.push({ path, range: req.headers.range, auth: req.headers.authorization });
    if (path === "/api/datasets/hotpotqa/hotpot_qa/tree/main/distractor") {
      // listed out of order, with a non-parquet file: the client must filter and sort
      const entries = [...files.entries()].reverse().map(([name, b]) => ({
        type: "file",
        path: `distractor/${name}`,
        size: b.length,
        oid: "git-oid",
        lfs: { oid: sha(b), size: b.length, pointerSize: 134 },
      }));
      entries.push({ type: "file", path: "distractor/notes.txt", size: 3, oid: "x", lfs: undefined as never });
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(entries));
      return;
    }
    const resolve = /^\/datasets\/hotpotqa\/hotpot_qa\/resolve\/main\/distractor\/(.+)$/.exec(path);
    if (resolve) {
      // like the hub: resolve redirects to file storage
      res.writeHead(302, { location: `/storage/${encodeURIComponent(resolve[1])}` }).end();
      return;
    }
    const stored = /^\/storage\/(.+)$/.exec(path);
    const body = stored && files.get(stored[1]);
    if (!body) {
      res.writeHead(404).end("not found");
      return;
    }
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? "");
    const start = range ? Number(range[1]) : 0;
    if (start >= body.length) {
      res.writeHead(416).end();
      return;
    }
    const slice = body.subarray(start);
    res.writeHead(range ? 206 : 200, {
      "content-length": String(slice.length),
      ...(range ? { "content-range": `bytes ${start}-${body.length - 1}/${body.length}` } : {}),
    });
    const cut = cutOnce.get(stored![1]);
    if (cut !== undefined) {
      cutOnce.delete(stored![1]);
      // the connection drops mid-file (FIN after the bytes, so they arrive before the drop)
      res.write(slice.subarray(0, cut), () => setTimeout(() => res.socket?.end(), 50));
      return;
    }
    res.end(slice);
  };
  const server: Server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    cutOnce,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

describe("data: hub download (local HTTP server)", function () {
  let dir: ReturnType<typeof tempDir>;
  let hub: FakeHub;
  let files: Map<string, Buffer>;
  let trainFile: string;
  let devFile: string;

  before(async function () {
    trainFile = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_train_partial.jsonl");
    devFile = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    dir = tempDir("hub");
    const train = readRows(trainFile);
    const dev = readRows(devFile);
    files = new Map();
    const src = join(dir.path, "served");
    mkdirSync(src);
    files.set("train-00000-of-00002.parquet", await writeHubParquet(join(src, "t0.parquet"), train.slice(0, 55)));
    files.set("train-00001-of-00002.parquet", await writeHubParquet(join(src, "t1.parquet"), train.slice(55)));
    files.set("validation-00000-of-00001.parquet", await writeHubParquet(join(src, "v.parquet"), dev));
    hub = await startFakeHub(files);
  });
  after(async () => {
    await hub?.close();
    dir?.remove();
  });

  it("downloads through HF_ENDPOINT with HF_TOKEN, resumes a dropped connection and an earlier partial file", async () => {
    const cache = join(dir.path, "cache");
    // an earlier run stopped 1000 bytes into the validation file
    const partial = join(
      cache,
      "datasets",
      "hotpotqa",
      "hotpot_qa",
      "main",
      "distractor",
      "validation-00000-of-00001.parquet.part",
    );
    mkdirSync(dirname(partial), { recursive: true });
    writeFileSync(partial, files.get("validation-00000-of-00001.parquet")!.subarray(0, 1000));
    // and this run's connection drops 5000 bytes into the first train file
    hub.cutOnce.set("train-00000-of-00002.parquet", 5000);

    const saved = { endpoint: process.env.HF_ENDPOINT, token: process.env.HF_TOKEN };
    process.env.HF_ENDPOINT = hub.url;
    process.env.HF_TOKEN = "hf_test_token";
    const progress: number[] = [];
    let got;
    try {
      got = await downloadHotpotQA({ cacheDir: cache, onProgress: (p) => progress.push(p.received) });
    } finally {
      for (const [k, v] of [
        ["HF_ENDPOINT", saved.endpoint],
        ["HF_TOKEN", saved.token],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
    assert.deepEqual(
      got.train.map((p) => p.split(/[\\/]/).pop()),
      ["train-00000-of-00002.parquet", "train-00001-of-00002.parquet"],
    );
    for (const [name, bytes] of files) {
      const local = [...got.train, ...got.dev].find((p) => p.endsWith(name))!;
      assert.ok(readFileSync(local).equals(bytes), `${name} downloaded intact`);
    }
    const storage = (name: string) =>
      hub.requests.filter((r) => r.path === `/storage/${name}`).map((r) => r.range ?? "whole");
    assert.deepEqual(storage("train-00000-of-00002.parquet"), ["whole", "bytes=5000-"]);
    assert.deepEqual(storage("validation-00000-of-00001.parquet"), ["bytes=1000-"]);
    assert.ok(hub.requests.filter((r) => r.path.startsWith("/api/")).every((r) => r.auth === "Bearer hf_test_token"));
    assert.ok(progress.length >= 3);

    // a second run finds everything in the cache: only the listing is fetched
    const before = hub.requests.length;
    await downloadHotpotQA({ cacheDir: cache, endpoint: hub.url });
    assert.deepEqual(
      hub.requests.slice(before).map((r) => r.path),
      ["/api/datasets/hotpotqa/hotpot_qa/tree/main/distractor"],
    );

    // the parquet files give exactly the bytes the same records give from JSONL
    const fromHub = join(dir.path, "from-hub");
    const fromJsonl = join(dir.path, "from-jsonl");
    await prepareData(fromHub, { trainFiles: got.train, devFiles: got.dev, source: got.description });
    await prepareData(fromJsonl, { trainFiles: [trainFile], devFiles: [devFile], source: "jsonl" });
    for (const name of ["corpus.jsonl", "train.jsonl", "val.jsonl", "test.jsonl"]) {
      assert.ok(
        readFileSync(join(fromHub, name)).equals(readFileSync(join(fromJsonl, name))),
        `${name} from parquet = from JSONL`,
      );
    }
  });

  it("refuses a download whose content does not match the listed sha256, and reports HTTP errors", async () => {
    const cache = join(dir.path, "cache-bad");
    const partial = join(
      cache,
      "datasets",
      "hotpotqa",
      "hotpot_qa",
      "main",
      "distractor",
      "train-00000-of-00002.parquet.part",
    );
    mkdirSync(dirname(partial), { recursive: true });
    // a corrupt partial file: right length after resuming, wrong bytes
    writeFileSync(partial, Buffer.alloc(100, 7));
    await assert.rejects(downloadHotpotQA({ cacheDir: cache, endpoint: hub.url }), /does not match the hub's sha256/);
    await assert.rejects(downloadHotpotQA({ cacheDir: cache, endpoint: `${hub.url}/nothing-here` }), /HTTP 404/);
  });

  it("agent-lab prepare downloads from the hub by default (HF_ENDPOINT, AGENT_LAB_CACHE) and prints progress", async () => {
    const saved = { endpoint: process.env.HF_ENDPOINT, cache: process.env.AGENT_LAB_CACHE };
    process.env.HF_ENDPOINT = hub.url;
    process.env.AGENT_LAB_CACHE = join(dir.path, "cli-cache");
    let printed;
    try {
      printed = await capturedOutput(() => prepareCli(["--out", join(dir.path, "cli-data")]));
    } finally {
      for (const [k, v] of [
        ["HF_ENDPOINT", saved.endpoint],
        ["AGENT_LAB_CACHE", saved.cache],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
    assert.match(printed.out, /^corpus [\d,]+ paragraphs \| train 110 \| val 0 \| test 200$/m);
    assert.match(printed.err, /downloading distractor\/validation-00000-of-00001\.parquet [\d.]+\/[\d.]+ MB 100%/);
    assert.ok(
      existsSync(
        join(
          dir.path,
          "cli-cache",
          "hub",
          "datasets",
          "hotpotqa",
          "hotpot_qa",
          "main",
          "distractor",
          "train-00001-of-00002.parquet",
        ),
      ),
    );
    assert.match(
      readFileSync(join(dir.path, "cli-data", "splits.json"), "utf8"),
      /"source": "http:\/\/127\.0\.0\.1:\d+\/datasets\/hotpotqa\/hotpot_qa \(distractor, main\)"/,
    );
  });
});
