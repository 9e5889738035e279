/**
 * Seeded and greedy mean reproducible on the local backend: two identical greedy evals of the
 * base model in one workspace give byte-identical episodes (token ids, logprobs, predictions),
 * even with another eval full of new token ids in between, and again after the backend restarts.
 * (Before the vocabulary was fixed, every id a request mentioned grew the model, and 20 of 30
 * episodes changed.)
 */
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/core/envs/config";
import { prepareData } from "../../../src/core/envs/hotpotqa/prepare";
import { generateSyntheticHotpot } from "../../../src/core/envs/hotpotqa/synthetic-world";
import { localBackendDir } from "../../../src/core/steps/eval/backends";
import { evalSplit } from "../../../src/core/steps/eval/eval-split";
import { buildIndex } from "../../../src/core/base/search";
import { startLocalBackend } from "../../../src/server";

/** The run's episode lines, byte for byte, in question order (concurrent episodes finish in any order). */
function episodes(runDir: string): string[] {
  return readFileSync(join(runDir, "episodes.jsonl"), "utf8").split("\n").filter(Boolean).sort();
}

describe("server/local backend: reproducible greedy evals", function () {
  this.timeout(120_000);

  it("two identical greedy evals give byte-identical episodes, with an eval of new token ids between them and across a restart", async () => {
    const ws = mkdtempSync(join(tmpdir(), "greedy-evals-"));
    try {
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
      const config = loadConfig(ws, { concurrency: 4, maxTokens: 12, maxSearches: 1, topK: 1 });
      let server = await startLocalBackend({ dir: localBackendDir(ws), seed: 0 });
      const run = (name: string, split: "val" | "train", limit: number) =>
        evalSplit({
          workspaceDir: ws,
          config,
          name,
          split,
          closedBook: false,
          limit,
          resume: false,
          temperature: 0,
          backend: "local",
          localBackendUrl: server.url,
          command: ["test"],
        });
      try {
        const first = await run("greedy-1", "val", 8);
        // Other questions, other paragraphs: many token ids the first eval never showed the model.
        await run("other", "train", 12);
        const second = await run("greedy-2", "val", 8);
        await server.close();
        server = await startLocalBackend({ dir: localBackendDir(ws), seed: 0 });
        const third = await run("greedy-3", "val", 8);
        const a = episodes(first.runDir);
        assert.equal(a.length, 8);
        assert.deepEqual(episodes(second.runDir), a, "an eval in between changed the greedy episodes");
        assert.deepEqual(episodes(third.runDir), a, "a restart changed the greedy episodes");
      } finally {
        await server.close();
      }
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });
});
