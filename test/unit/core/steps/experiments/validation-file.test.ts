/** validation.json: the last `experiment validate` kept beside the record, read back only for the record it checked. */
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readValidationFile, writeValidationFile } from "../../../../../src/core/steps/experiments/validation-file";

describe("experiments: validation.json", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-validation-file-"));
    writeFileSync(join(dir, "experiment.json"), '{"name":"x"}\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const result = {
    passed: ["same-items"],
    failed: ["budget"],
    unverifiable: [],
    checks: [
      { check: "same-items", status: "passed" as const, reason: "20 items" },
      { check: "budget", status: "failed" as const, reason: "the runs' ledgers add up to $1.5000" },
    ],
  };

  it("reads back what validate found for the record as it is", () => {
    writeValidationFile(dir, result);
    const v = readValidationFile(dir)!;
    assert.deepEqual(v.checks, result.checks);
    assert.deepEqual([v.passed, v.failed], [["same-items"], ["budget"]]);
  });

  it("a record rewritten since (a resume, a rerun) has no validation until validated again", () => {
    writeValidationFile(dir, result);
    writeFileSync(join(dir, "experiment.json"), '{"name":"x","rewritten":true}\n');
    assert.equal(readValidationFile(dir), undefined);
  });

  it("none written, or not this format: none", () => {
    assert.equal(readValidationFile(dir), undefined);
    writeFileSync(join(dir, "validation.json"), JSON.stringify({ checks: [] }));
    assert.equal(readValidationFile(dir), undefined);
  });
});
