/**
 * Bring your own corpus: `agent-lab prepare --corpus FILE` installs a user's corpus.jsonl-format file
 * as <data>/corpus.jsonl and builds its index; a bad line is refused in one line naming the file and
 * line, with the data folder left exactly as it was.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openIndex } from "../../../../../src/core/base/search";
import { runCli } from "../../../cli/cli-process";

const rows = [
  { id: 0, title: "Ed Wood", text: "Edward Davis Wood Jr. was an American filmmaker, actor and author." },
  { id: 1, title: "Scott Derrickson", text: "Scott Derrickson is an American director and screenwriter." },
  { title: "Tokyo", text: "東京 is the capital of Japan. Café naïve résumé." },
];
const jsonl = (r: readonly object[]) => r.map((x) => JSON.stringify(x)).join("\n") + "\n";

/** Every file under a folder with its bytes, to show nothing changed. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name);
      out[path.slice(dir.length)] = readFileSync(path).toString("base64");
    }
  }
  return out;
}

describe("envs/hotpotqa: prepare --corpus FILE (bring your own corpus)", function () {
  this.timeout(120_000);
  let root: string;
  let data: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "agent-lab-corpus-"));
    data = join(root, "data");
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("copies the file to <data>/corpus.jsonl and builds its index; alone it writes no split", async () => {
    const mine = join(root, "mine.jsonl");
    writeFileSync(mine, jsonl(rows));
    const r = await runCli(["prepare", "--corpus", mine, "--out", data]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^corpus 3 paragraphs from ${mine} → ${join(data, "corpus.jsonl")}$`, "m"));
    assert.match(r.stdout, /^indexed into .*bm25 in [\d.]+ s/m);
    assert.equal(readFileSync(join(data, "corpus.jsonl"), "utf8"), jsonl(rows));
    const index = openIndex(join(data, "bm25"));
    assert.equal(index.search("Derrickson screenwriter", 1)[0].title, "Scott Derrickson");
    assert.equal(index.search("東京", 1)[0].title, "Tokyo");
    assert.deepEqual(readdirSync(data).sort(), ["bm25", "corpus.jsonl"], "no split, no temp file");
  });

  it("a bad line is refused naming the file and line, and the data folder is left as it was", async () => {
    const good = join(root, "good.jsonl");
    writeFileSync(good, jsonl(rows));
    assert.equal((await runCli(["prepare", "--corpus", good, "--out", data])).code, 0);
    const before = snapshot(data);

    const wrongType = join(root, "wrong-type.jsonl");
    writeFileSync(wrongType, jsonl(rows.slice(0, 2)) + '{"title": 5, "text": "x"}\n');
    const r = await runCli(["prepare", "--corpus", wrongType, "--out", data]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim().split("\n").pop(), `agent-lab prepare: ${wrongType}:3: "title" must be a string`);

    const notJson = join(root, "not-json.jsonl");
    writeFileSync(notJson, jsonl(rows) + "\n{oops\n");
    const j = await runCli(["prepare", "--corpus", notJson, "--out", data]);
    assert.equal(j.code, 1);
    assert.match(
      j.stderr.trim().split("\n").pop()!,
      new RegExp(`^agent-lab prepare: ${notJson}:5: not valid JSON \\(`),
    );

    const badId = join(root, "bad-id.jsonl");
    writeFileSync(badId, '{"id": "a", "title": "t", "text": "x"}\n');
    const i = await runCli(["prepare", "--corpus", badId, "--out", data]);
    assert.equal(
      i.stderr.trim().split("\n").pop(),
      `agent-lab prepare: ${badId}:1: "id" must be an integer when present`,
    );

    assert.deepEqual(snapshot(data), before, "corpus.jsonl and the index are untouched, no temp file is left");
  });

  it("refuses a missing file, and an environment that searches no corpus, in one line; no data folder is left behind", async () => {
    const missing = join(root, "nope.jsonl");
    const r = await runCli(["prepare", "--corpus", missing, "--out", data]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim(), `agent-lab prepare: --corpus ${missing}: no such file`);
    assert.deepEqual(readdirSync(root), [], "no data folder made where there was none");
    const other = await runCli(["prepare", "--env", "gsm8k", "--corpus", missing, "--out", data]);
    assert.equal(other.code, 1);
    assert.equal(
      other.stderr.trim(),
      "agent-lab prepare: --corpus: the gsm8k environment searches no corpus (its tasks have no search tool)",
    );
  });
});
