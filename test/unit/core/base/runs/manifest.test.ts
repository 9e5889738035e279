import { strict as assert } from "node:assert";
import { describeDifferences, fingerprintDiff } from "../../../../../src/core/base/runs/manifest";
import { fakeManifest } from "./fakes";

describe("runs/manifest fingerprintDiff", () => {
  it("is empty for identical fingerprints, whatever the job fields say", () => {
    const a = fakeManifest();
    const b = fakeManifest();
    b.job = { command: ["eval", "--resume"], created: "later", concurrency: 4, limit: 10 };
    assert.deepEqual(fingerprintDiff(a, b), []);
  });

  it("names every differing field by its dotted path, including nested searcher settings", () => {
    const a = fakeManifest();
    const b = fakeManifest();
    b.search!.top_k = 5;
    b.search!.searcher = { kind: "bm25", index_sha256: "dd" };
    b.system_prompt.sha256 = "ee";
    b.policy.checkpoint = "tinker://run/sampler/1";
    const fields = fingerprintDiff(a, b).map((d) => d.field);
    assert.deepEqual(fields, [
      "policy.checkpoint",
      "search.searcher.index_sha256",
      "search.top_k",
      "system_prompt.sha256",
    ]);
    assert.match(describeDifferences(fingerprintDiff(a, b)), /search\.top_k: 3 → 5/);
    assert.match(describeDifferences(fingerprintDiff(a, b)), /policy\.checkpoint: \(absent\) → "tinker:/);
  });

  it("notices closed-book versus searcher, and a test-split flag", () => {
    const a = fakeManifest();
    const b = fakeManifest();
    b.search!.closed_book = true;
    b.search!.searcher = null;
    b.test_split = { opened: true, flag: "--i-know-this-is-test" };
    const fields = fingerprintDiff(a, b).map((d) => d.field);
    assert.ok(fields.includes("search.closed_book"));
    assert.ok(fields.includes("search.searcher.kind"));
    assert.ok(fields.includes("test_split.opened"));
    assert.ok(fields.includes("test_split.flag"));
  });
});
