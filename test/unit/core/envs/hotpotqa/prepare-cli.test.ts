/** `agent-lab prepare --train … --dev …`, run in-process through the CLI module. */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../../../src/cli/prepare";
import { UserError } from "../../../../../src/core/base/errors";
import { requireSharedData } from "../../../../helpers/shared-data";
import { capturedOutput, tempDir } from "../../base/data/helpers";

describe("prepare CLI", function () {
  let dir: ReturnType<typeof tempDir>;
  let train: string;
  let dev: string;
  before(function () {
    train = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_train_partial.jsonl");
    dev = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    dir = tempDir("prepare-cli");
  });
  after(() => dir?.remove());

  it("writes into the workspace's dataDir and prints counts and the test hash like the recipe", async () => {
    writeFileSync(join(dir.path, "agent-lab.json"), JSON.stringify({ dataDir: "my-data" }));
    const { out, err } = await capturedOutput(() => run(["--workspace", dir.path, "--train", train, "--dev", dev]));
    const data = join(dir.path, "my-data");
    const splits = JSON.parse(readFileSync(join(data, "splits.json"), "utf8"));
    const [first, second] = out.split("\n");
    assert.equal(
      first,
      `corpus ${splits.counts.corpus.toLocaleString("en-US")} paragraphs | train 110 | val 0 | test 200`,
    );
    assert.ok(second.startsWith(`test.jsonl sha256 ${splits.test_sha256} `), second);
    assert.match(second, /cb4ad042f2c0ef38/); // says which hash the full dataset gives
    assert.match(err, /note: dev has only 200 questions/);
    assert.ok(existsSync(join(data, "corpus.jsonl")));
  });

  it("refuses half-given local sources and --hub mixed with files", async () => {
    await assert.rejects(
      run(["--out", dir.path, "--train", train]),
      (e: unknown) => e instanceof UserError && /--train and --dev go together/.test(e.message),
    );
    await assert.rejects(
      run(["--out", dir.path, "--hub", "--train", train, "--dev", dev]),
      /either --hub or --train\/--dev/,
    );
    // Each environment's refusal names its own flags (its info's local file roles).
    await assert.rejects(
      run(["--env", "gsm8k", "--out", dir.path, "--train", train]),
      (e: unknown) => e instanceof UserError && e.message === "--train and --test go together: give both",
    );
    await assert.rejects(
      run(["--bogus"]),
      /^UserError: unknown flag --bogus \(agent-lab prepare --help lists the flags\)$/,
    );
  });
});
