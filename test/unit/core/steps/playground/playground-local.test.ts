/**
 * The playground against the local backend's tiny model, in the default environment: turns run
 * until the environment ends the episode, and the saved run's episode is byte for byte the one a
 * greedy eval of the same item writes; the saved runs (a split item's, scored, and a typed
 * question's, unscored) read back through `show` and the failure labels as any eval run.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../../../src/core/envs/config";
import { SHOW_FIELDS } from "../../../../../src/core/base/runs/episode-record";
import { readRun, readSummary } from "../../../../../src/core/base/runs/run-files";
import { buildIndex } from "../../../../../src/core/base/search";
import { environmentMetrics } from "../../../../../src/core/envs/catalog";
import { prepareData } from "../../../../../src/core/envs/hotpotqa/prepare";
import { generateSyntheticHotpot } from "../../../../../src/core/envs/hotpotqa/synthetic-world";
import { evalSplit } from "../../../../../src/core/steps/eval/eval-split";
import { Playground, type PlaygroundEpisode } from "../../../../../src/core/steps/playground/playground";
import { readRunFailures } from "../../../../../src/core/views/failures/run-failures";
import { renderShow } from "../../../../../src/core/views/trace/trace-text";
import { startLocalBackend } from "../../../../../src/server";
import { localBackendDir } from "../../../../../src/core/steps/eval/backends";

describe("steps/playground: the local backend's tiny model", function () {
  this.timeout(180_000);
  let ws: string;
  let server: Awaited<ReturnType<typeof startLocalBackend>>;
  const config = () => loadConfig(ws, { concurrency: 1, maxTokens: 12, maxSearches: 2, topK: 1 });
  const greedy = { temperature: 0, maxTokens: 12 };

  before(async () => {
    ws = mkdtempSync(join(tmpdir(), "agent-lab-playground-local-"));
    const world = generateSyntheticHotpot({ seed: 5, train: 150, dev: 720, style: "compact" });
    mkdirSync(join(ws, "hotpot"));
    writeFileSync(join(ws, "hotpot", "train.json"), JSON.stringify(world.train));
    writeFileSync(join(ws, "hotpot", "dev.json"), JSON.stringify(world.dev));
    const dataDir = join(ws, "data");
    await prepareData(dataDir, {
      trainFiles: [join(ws, "hotpot", "train.json")],
      devFiles: [join(ws, "hotpot", "dev.json")],
      source: "test world",
    });
    await buildIndex(join(dataDir, "corpus.jsonl"), join(dataDir, "bm25"), { workers: 0 });
    server = await startLocalBackend({ dir: localBackendDir(ws), seed: 0 });
  });
  after(async () => {
    await server?.close();
    if (ws) rmSync(ws, { recursive: true, force: true });
  });

  const open = () =>
    Playground.open({ workspaceDir: ws, config: config(), backend: "local", localBackendUrl: server.url });
  /** Turns until the environment ends the episode (at most its search budget and one more). */
  const finish = async (ep: PlaygroundEpisode) => {
    let turns = 0;
    for (;;) {
      turns++;
      if ((await ep.next(greedy)).done) return turns;
      assert.ok(turns < 4, "the environment ends the episode within its search budget");
    }
  };

  it("a split item's turns save the episode a greedy eval writes, byte for byte; show and failures read the run", async () => {
    const pg = await open();
    try {
      const item = pg.items("val")[0];
      const ep = pg.start({ split: "val", id: item.id });
      const turns = await finish(ep);
      assert.equal(ep.transcript().turns.length, turns);
      const saved = await ep.save("chat-local");
      const evalRun = await evalSplit({
        workspaceDir: ws,
        config: config(),
        name: "eval-local",
        split: "val",
        closedBook: false,
        limit: 1,
        resume: false,
        temperature: 0,
        backend: "local",
        localBackendUrl: server.url,
        command: ["test"],
      });
      const line = (dir: string) => readFileSync(join(dir, "episodes.jsonl"), "utf8");
      assert.equal(line(saved), line(evalRun.runDir));

      const files = {
        ...readRun(saved, environmentMetrics, SHOW_FIELDS),
        summary: readSummary(saved, environmentMetrics),
      };
      const shown = renderShow(files, { name: "chat-local", n: 3, seed: 0, style: "plain" });
      assert.match(shown, /^chat-local/m);
      const failures = await readRunFailures({
        ...readRun(saved, environmentMetrics, SHOW_FIELDS),
        dataDir: join(ws, "data"),
      });
      assert.ok(failures, "the default environment's failure rules label the saved run");
      assert.equal(failures.table.episodes, 1);
    } finally {
      pg.close();
    }
  });

  it("a typed question's run is unscored and still reads through show and the failure labels", async () => {
    const pg = await open();
    try {
      const ep = pg.start({ typed: "Who wrote the first song?" });
      await finish(ep);
      const saved = await ep.save("chat-typed-local");
      const run = readRun(saved, environmentMetrics, SHOW_FIELDS);
      assert.deepEqual(run.episodes[0].answers, []);
      const files = { ...run, summary: readSummary(saved, environmentMetrics) };
      assert.match(renderShow(files, { name: "chat-typed-local", n: 3, seed: 0, style: "plain" }), /split typed/);
      const failures = await readRunFailures({ ...run, dataDir: join(ws, "data") });
      assert.equal(failures?.table.episodes, 1);
    } finally {
      pg.close();
    }
  });
});
