import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run as index } from "../../../../../src/cli/index-command";
import { progressLine } from "../../../../../src/core/base/search/build-progress";
import { run as search } from "../../../../../src/cli/search";
import { writeCorpus } from "../../../../../bench/search/real-paragraphs";
import { UserError } from "../../../../../src/core/base/errors";
import { capturedOutput } from "../data/helpers";

const capture = async (fn: () => Promise<void>): Promise<string> => (await capturedOutput(fn)).out;

describe("agent-lab index / search", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-search-cli-"));
    mkdirSync(join(dir, "data"));
    writeCorpus(
      [
        {
          id: 0,
          title: "Scott Derrickson",
          text:
            "Scott Derrickson (born July 16, 1966) is an American director, screenwriter and producer. " +
            "He lives in Los Angeles. ".repeat(10),
        },
        {
          id: 1,
          title: "Ed Wood",
          text: "Edward Davis Wood Jr. was an American filmmaker, actor, writer, producer, and director.",
        },
      ],
      join(dir, "data", "corpus.jsonl"),
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("index builds <data>/bm25 and says how many paragraphs; search prints [title] text[:200]", async () => {
    const built = await capture(() => index(["--data", join(dir, "data")]));
    assert.match(built, /^indexed 2 paragraphs into .*bm25 in [\d.]+ s/);
    assert.match(built, /; 1 chunk\(s\), work folder peak \d+ MiB\)$/m, "disk use is reported");
    const out = await capture(() =>
      search(["Scott", "Derrickson", "nationality", "-k", "1", "--data", join(dir, "data")]),
    );
    assert.ok(out.startsWith("[Scott Derrickson] Scott Derrickson (born July 16, 1966)"), out);
    assert.equal(out.split("\n")[0].length, "[Scott Derrickson] ".length + 200);
    assert.ok(!out.includes("Ed Wood"));
  });

  it("reads the data folder from the workspace config by default", async () => {
    const out = await capture(() => search(["Ed Wood", "--workspace", dir]));
    assert.match(out, /^\[Ed Wood\] Edward Davis Wood Jr\./);
  });

  it("explains what to run when the corpus or the index is missing, and refuses a bad -k", async () => {
    const empty = mkdtempSync(join(tmpdir(), "agent-lab-search-cli-empty-"));
    try {
      await assert.rejects(
        index(["--data", empty]),
        (e: unknown) => e instanceof UserError && /agent-lab prepare/.test(e.message),
      );
      await assert.rejects(
        search(["anything", "--data", empty]),
        (e: unknown) => e instanceof UserError && /agent-lab index/.test(e.message),
      );
      await assert.rejects(
        search(["Ed", "-k", "0", "--data", join(dir, "data")]),
        (e: unknown) => e instanceof UserError && /-k/.test(e.message),
      );
      await assert.rejects(search(["--data", join(dir, "data")]), UserError);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it("progress names the phase, chunk i/n or the merged share, the pace, the ETA and the work folder's size", () => {
    const base = {
      documents: 2_500_000,
      perSecond: 41_234.4,
      postings: 0,
      postingsMerged: 0,
      workBytes: 3.2 * 2 ** 30,
    };
    assert.equal(
      progressLine({ ...base, phase: "chunks", chunk: 3, chunks: 21, etaSeconds: 361 }),
      "chunk 3/21 · 2,500,000 paragraphs · 41,234/s · ETA 6 min · work 3.2 GiB",
    );
    assert.equal(
      progressLine({
        ...base,
        phase: "merge",
        chunk: 21,
        chunks: 21,
        etaSeconds: 42,
        postings: 1e9,
        postingsMerged: 4.5e8,
      }),
      "merge 45% of 1,000,000,000 postings · 41,234/s · ETA 42 s · work 3.2 GiB",
    );
    assert.equal(
      progressLine({ ...base, phase: "chunks", chunk: 1, chunks: 1, etaSeconds: undefined, workBytes: 5 << 20 }),
      "chunk 1/1 · 2,500,000 paragraphs · 41,234/s · work 5 MiB",
    );
  });
});
