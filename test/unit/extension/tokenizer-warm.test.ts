/**
 * The trace tokenizer's background load waits for this window's jobs to end: it holds the
 * extension host for a second or more, which mid-pipeline kept the Checkpoints view from showing
 * the SFT checkpoint before the pipeline ended.
 */
import { strict as assert } from "node:assert";
import { TokenizerWarmer } from "../../../src/extension/trace/tokenizer-warm";
import { EventEmitter } from "./fake-vscode";

const DELAY_MS = 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("extension: the trace tokenizer's background load", () => {
  let busy: boolean;
  let jobs: EventEmitter<void>;
  let loaded: string[];
  let warmer: TokenizerWarmer;
  beforeEach(() => {
    busy = false;
    jobs = new EventEmitter<void>();
    loaded = [];
    warmer = new TokenizerWarmer(
      () => busy,
      jobs.event,
      (t) => loaded.push(t),
      DELAY_MS,
    );
  });
  afterEach(() => warmer.dispose());

  it("with no job running: loads once, a moment after the first run with episodes is listed", async () => {
    warmer.want("Qwen/Qwen3.5-4B");
    assert.deepEqual(loaded, [], "not at once: the tree draws first");
    await sleep(DELAY_MS * 3);
    assert.deepEqual(loaded, ["Qwen/Qwen3.5-4B"]);
    jobs.fire();
    await sleep(DELAY_MS * 3);
    assert.deepEqual(loaded, ["Qwen/Qwen3.5-4B"], "not again");
  });

  it("while a job runs: waits, however often the job moves, and loads once it has ended", async () => {
    busy = true;
    warmer.want("Qwen/Qwen3.5-4B");
    for (let i = 0; i < 3; i++) {
      jobs.fire(); // progress
      await sleep(DELAY_MS * 2);
    }
    assert.deepEqual(loaded, [], "nothing while the job ran");
    busy = false;
    jobs.fire(); // the job ended
    await sleep(DELAY_MS * 3);
    assert.deepEqual(loaded, ["Qwen/Qwen3.5-4B"]);
  });

  it("a job that starts during the moment's wait holds the load back too", async () => {
    warmer.want("Qwen/Qwen3.5-4B");
    busy = true;
    await sleep(DELAY_MS * 3);
    assert.deepEqual(loaded, []);
    busy = false;
    jobs.fire();
    await sleep(DELAY_MS * 3);
    assert.deepEqual(loaded, ["Qwen/Qwen3.5-4B"]);
  });
});
