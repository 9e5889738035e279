/**
 * `agent-lab pipeline` through the real CLI: the dry run's plan (tinker sizes and costs, no key
 * needed, nothing written), the key check before anything is written, and flag errors.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "./cli-process";

describe("cli: agent-lab pipeline", function () {
  this.timeout(120_000);
  let ws: string;
  before(() => {
    ws = mkdtempSync(join(tmpdir(), "agent-lab-pipeline-cli-"));
  });
  after(() => rmSync(ws, { recursive: true, force: true }));

  it("--dry-run --backend tinker prints stages, sizes and cost without a key, and writes nothing", async () => {
    const dir = join(ws, "tinker-plan");
    const r = await runCli(["pipeline", "--backend", "tinker", "--dry-run", "--dir", dir], { TINKER_API_KEY: "" });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /sft-data\s+\[to do\]\s+≈ \$\d+\.\d\d/);
    assert.match(r.stdout, /1500 train questions × 4 tries/);
    assert.match(r.stdout, /estimated cost: ≈ \$\d+\.\d\d in all/);
    assert.equal(existsSync(dir), false);
  });

  it("--backend tinker without a key stops before writing anything", async () => {
    const dir = join(ws, "no-key");
    const r = await runCli(["pipeline", "--backend", "tinker", "--dir", dir, "--yes"], { TINKER_API_KEY: "" });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /TINKER_API_KEY/);
    assert.equal(existsSync(dir), false);
  });

  it("the local dry run says it is a stand-in and free; a bad backend is a user error", async () => {
    const r = await runCli(["pipeline", "--dry-run", "--dir", join(ws, "local-plan")]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /stand-in/);
    assert.match(r.stdout, /cost: \$0/);
    const bad = await runCli(["pipeline", "--backend", "gpu"]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /agent-lab pipeline: --backend must be one of local, tinker, got "gpu"/);
  });

  it("--env gsm8k plans the arithmetic world's stages; a world runs offline only; an unknown env is refused with the choices", async () => {
    const dir = join(ws, "gsm8k-plan");
    const r = await runCli(["pipeline", "--env", "gsm8k", "--dry-run", "--dir", dir]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /write the arithmetic world/);
    assert.match(r.stdout, /data\/gsm8k-world\//);
    assert.doesNotMatch(r.stdout, /eval-closed-book|BM25/);
    assert.match(r.stdout, /not how Qwen3\.5-4B does on GSM8K/);
    assert.equal(existsSync(dir), false);
    const paid = await runCli(["pipeline", "--env", "gsm8k", "--backend", "tinker", "--dry-run", "--dir", dir]);
    assert.equal(paid.code, 1);
    assert.match(paid.stderr, /--env gsm8k runs offline only/);
    const unknown = await runCli(["pipeline", "--env", "chess", "--dry-run", "--dir", dir]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /--env must be one of hotpotqa, gsm8k, got "chess"/);
  });
});
