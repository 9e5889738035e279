/**
 * The numbers training is built from, each on its own (the loop tests in grpo.test.ts and
 * sft.test.ts run them on a backend): the learning-rate decay, GRPO's advantages at the tolerance's
 * edge, the per-turn sampling seeds and the policy that carries them, and the SFT rows read from
 * sft.jsonl: weight only on the tokens the model sampled, tokens billed per epoch, each bad row
 * named by file and line.
 */
import { strict as assert } from "node:assert";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatTokenizer } from "../../../../../src/core/base/chat";
import { FileFormatError, UserError } from "../../../../../src/core/base/errors";
import type { Policy, SampleOptions } from "../../../../../src/core/harness/policy";
import { linearLr, readSftData, sftDataHash } from "../../../../../src/core/steps/train";
import {
  CONSTANT_GROUP_EPS,
  episodeSeed,
  groupAdvantages,
  seededPolicy,
} from "../../../../../src/core/steps/train/grpo";

const close = (got: readonly number[] | null, want: readonly number[], what: string) => {
  assert.ok(got, `${what}: null`);
  assert.equal(got.length, want.length, what);
  got.forEach((g, k) => assert.ok(Math.abs(g - want[k]) < 1e-12, `${what}[${k}]: ${g} vs ${want[k]}`));
};

describe("train: learning-rate decay", () => {
  it("starts at the peak, falls linearly, reaches 0 after the last step and never goes below", () => {
    assert.equal(linearLr(0.1, 0, 10), 0.1);
    assert.ok(Math.abs(linearLr(0.1, 5, 10) - 0.05) < 1e-15);
    assert.ok(Math.abs(linearLr(0.1, 9, 10) - 0.01) < 1e-15);
    assert.equal(linearLr(0.1, 10, 10), 0);
    assert.equal(linearLr(0.1, 12, 10), 0);
    assert.equal(linearLr(2e-4, 0, 0), 2e-4, "no steps planned: the peak");
    assert.equal(linearLr(2e-4, 3, -1), 2e-4);
  });
});

describe("train: GRPO advantages and seeds", () => {
  it("rewards exactly the tolerance apart are not equal; closer ones are", () => {
    assert.equal(CONSTANT_GROUP_EPS, 1e-6);
    close(groupAdvantages([0, 1e-6]), [-5e-7, 5e-7], "1e-6 apart");
    assert.equal(groupAdvantages([0, 9.99e-7]), null);
    assert.equal(groupAdvantages([]), null);
    assert.equal(groupAdvantages([0.7]), null, "one sample has nothing to compare with");
  });

  it("centres on the group's mean for any spread and sign, and normalises by the population std", () => {
    close(groupAdvantages([-1, 0, 4]), [-2, -1, 3], "mean 1");
    close(groupAdvantages([0.2, 0.5, 0.8]), [-0.3, 0, 0.3], "three values");
    const std = Math.sqrt((0.09 + 0 + 0.09) / 3);
    close(groupAdvantages([0.2, 0.5, 0.8], true), [-0.3 / std, 0, 0.3 / std], "normalised");
    close(groupAdvantages([0.2, 0.5, 0.8], false), [-0.3, 0, 0.3], "normalize false");
    close(groupAdvantages([3, 1], true), [1, -1], "two values");
  });

  it("draws a turn's seed as the first 31 bits of sha256 over (run seed, step, question, sample, turn)", () => {
    const want = (...key: [number, number, string, number, number]) =>
      createHash("sha256").update(JSON.stringify(key)).digest().readUInt32BE(0) >>> 1;
    for (const key of [
      [0, 1, "q", 0, 0],
      [7, 3, "5a8b57f25542995398c0c7f3", 2, 5],
      [-4, 1, "", 0, 0],
      [2 ** 40, 9, "é", 1, 2],
    ] as [number, number, string, number, number][]) {
      assert.equal(episodeSeed(...key), want(...key), JSON.stringify(key));
    }
    // Golden values: a rerun on another build must draw the same episodes.
    assert.equal(episodeSeed(0, 1, "q", 0, 0), 239542365);
    assert.equal(episodeSeed(7, 3, "x", 2, 5), 1142760234);
    assert.ok(episodeSeed(0, 1, "q", 0, 0) < 2 ** 31);
  });

  it("gives each call of an episode's policy the seed of its turn, counting from 0, and passes the rest through", async () => {
    const seen: SampleOptions[] = [];
    const tokenizer = { name: "t" } as unknown as ChatTokenizer;
    const inner: Policy = {
      tokenizer,
      endToken: 7,
      sample: async (_prompt, options) => {
        seen.push(options);
        return { tokens: [1], logprobs: null, stopReason: "stop" };
      },
      describe: () => ({ kind: "scripted", model: "m", logprobs: false }),
    };
    const policy = seededPolicy(inner, (turn) => 100 + turn);
    assert.equal(policy.tokenizer, tokenizer);
    assert.equal(policy.endToken, 7);
    assert.deepEqual(policy.describe(), { kind: "scripted", model: "m", logprobs: false });
    for (let t = 0; t < 3; t++) await policy.sample([1, 2], { temperature: 0.5, maxTokens: 9 });
    assert.deepEqual(seen, [
      { temperature: 0.5, maxTokens: 9, seed: 100 },
      { temperature: 0.5, maxTokens: 9, seed: 101 },
      { temperature: 0.5, maxTokens: 9, seed: 102 },
    ]);
    // A second episode's wrapper counts its own turns from 0.
    await seededPolicy(inner, (turn) => 200 + turn).sample([1], { temperature: 1, maxTokens: 1 });
    assert.equal(seen.at(-1)!.seed, 200);
  });
});

describe("train: SFT rows from sft.jsonl", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-sft-rows-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const write = (lines: readonly string[], name = "sft.jsonl") => {
    const file = join(dir, name);
    writeFileSync(file, lines.join("\n"));
    return file;
  };
  const row = (r: Record<string, unknown>) => JSON.stringify(r);

  it("weights only the tokens the model sampled (shifted by one), names rows, bills every input token", () => {
    const file = write([
      row({ id: "a", prompt: [1, 2], tokens: [3, 4, 5], sampled: [1, 0, true] }),
      "",
      "   ",
      row({ prompt: [6], tokens: [7], sampled: [1] }),
    ]);
    const data = readSftData(file);
    assert.equal(data.file, file);
    assert.deepEqual(
      data.rows.map((r) => [r.id, r.sampled]),
      [
        ["a", [1, 0, 1]],
        ["line 4", [1]],
      ],
    );
    // Sequence 1 2 3 4 5: inputs 1 2 3 4, targets 2 3 4 5, weights 0 (prompt) 1 0 1.
    assert.deepEqual(data.datums[0].loss_fn_inputs.target_tokens.data, [2, 3, 4, 5]);
    assert.deepEqual(data.datums[0].loss_fn_inputs.weights.data, [0, 1, 0, 1]);
    assert.deepEqual(data.datums[1].loss_fn_inputs.weights.data, [1]);
    assert.equal(data.tokensPerEpoch, 4 + 1);
    const hex = createHash("sha256").update(readFileSync(file)).digest("hex");
    assert.equal(data.hash, `sha256:${hex}`);
    assert.equal(data.lineageWarning, undefined);
    assert.equal(data.tokenizer, undefined);
  });

  it("reads a run folder's sft.jsonl, and names a missing path or file", () => {
    const run = join(dir, "run");
    mkdirSync(run);
    assert.throws(
      () => readSftData(run),
      (e: unknown) =>
        e instanceof UserError &&
        e.message === `${join(run, "sft.jsonl")} is missing (make it with agent-lab sft-data)`,
    );
    writeFileSync(join(run, "sft.jsonl"), row({ prompt: [1], tokens: [2], sampled: [1] }) + "\n");
    assert.equal(readSftData(run).rows.length, 1);
    const nowhere = join(dir, "nowhere");
    assert.throws(
      () => readSftData(nowhere),
      (e: unknown) =>
        e instanceof UserError &&
        e.message === `--data ${nowhere}: no such file or folder (make it with agent-lab sft-data)`,
    );
  });

  it("names the file and line of each bad row", () => {
    const good = row({ prompt: [1], tokens: [2], sampled: [1] });
    const cases: [string, string][] = [
      ["{not json", "not valid JSON ("],
      [
        row({ prompt: [1.5], tokens: [2], sampled: [1] }),
        'expected integer arrays "prompt", "tokens" and an array "sampled"',
      ],
      [
        row({ prompt: [1], tokens: ["2"], sampled: [1] }),
        'expected integer arrays "prompt", "tokens" and an array "sampled"',
      ],
      [
        row({ prompt: [1], tokens: [2], sampled: 1 }),
        'expected integer arrays "prompt", "tokens" and an array "sampled"',
      ],
      [row({ tokens: [2], sampled: [1] }), 'expected integer arrays "prompt", "tokens" and an array "sampled"'],
      ["null", 'expected integer arrays "prompt", "tokens" and an array "sampled"'],
      [row({ prompt: [1], tokens: [2, 3], sampled: [1] }), '"sampled" has 1 flags for 2 tokens'],
      [row({ prompt: [1], tokens: [2, 3], sampled: [0, false] }), "no token is marked sampled: nothing to learn from"],
      [row({ prompt: [], tokens: [2], sampled: [1] }), "a row needs at least 2 tokens"],
    ];
    for (const [bad, message] of cases) {
      const file = write([good, bad]);
      assert.throws(
        () => readSftData(file),
        (e: unknown) => e instanceof FileFormatError && e.message.startsWith(`${file}:2: ${message}`),
        bad,
      );
    }
    const empty = write(["", ""]);
    assert.throws(
      () => readSftData(empty),
      (e: unknown) => e instanceof FileFormatError && e.message === `${empty}: no SFT rows`,
    );
  });

  it("says when the sft-data manifest next to the data disagrees with it, and reads its tokenizer", () => {
    const file = write([row({ prompt: [1], tokens: [2], sampled: [1] })]);
    const hex = createHash("sha256").update(readFileSync(file)).digest("hex");
    const manifest = join(dir, "manifest.json");
    writeFileSync(manifest, JSON.stringify({ output: { sha256: hex }, fingerprint: { tokenizer: "Qwen/Qwen3-8B" } }));
    assert.deepEqual(sftDataHash(file), { hash: `sha256:${hex}`, tokenizer: "Qwen/Qwen3-8B" });
    writeFileSync(manifest, JSON.stringify({ output: { sha256: `sha256:${hex}` }, fingerprint: { tokenizer: 3 } }));
    assert.deepEqual(sftDataHash(file), { hash: `sha256:${hex}`, tokenizer: undefined });
    writeFileSync(manifest, JSON.stringify({ output: { sha256: "0".repeat(64) }, status: "running" }));
    assert.deepEqual(sftDataHash(file), {
      hash: `sha256:${hex}`,
      tokenizer: undefined,
      lineageWarning: `${file} differs from what its manifest recorded (status running); the checkpoints record the data as it is now`,
    });
    writeFileSync(manifest, JSON.stringify({ status: "done" }));
    assert.deepEqual(sftDataHash(file), { hash: `sha256:${hex}`, tokenizer: undefined }, "a manifest without output");
    writeFileSync(manifest, "{ torn");
    assert.deepEqual(sftDataHash(file), {
      hash: `sha256:${hex}`,
      lineageWarning: `${manifest} is not valid JSON; the data is named by its own hash`,
    });
    assert.equal(readSftData(file).lineageWarning, `${manifest} is not valid JSON; the data is named by its own hash`);
  });
});
