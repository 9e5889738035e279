/**
 * Reliability: no command writes over a run's own files, and the smaller holes of issue 30 stay
 * closed (parts 2 and 7): export-chat, prepare and gen-tasks refuse an output path inside a run
 * folder (the run's files byte-unchanged, `show` still reads it); a spec's data path outside its
 * workspace is refused without reading it; sft-data --from-runs refuses a threshold that selects
 * nothing (no run written), counts a run named twice once, and says (and records) that a source
 * run is still being written; a transcript's title cannot add markdown.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../src/core/base/chat";
import { type AgentLabConfig } from "../../../src/core/base/config";
import { mergeConfig } from "../../../src/core/envs/config";
import { UserError } from "../../../src/core/base/errors";
import { lockRunFolder } from "../../../src/core/base/runs/run-folder";
import { writeGsm8kSplits } from "../../../src/core/envs/gsm8k";
import { ScriptedPolicy } from "../../../src/core/harness/policies/scripted";
import { sftFromRuns, type SourceRun } from "../../../src/core/steps/sft/from-runs";
import { transcriptsMarkdown } from "../../../src/core/views/interop/cookbook";
import { scriptedEval } from "../../helpers/scripted-eval";
import { fixtureRecords } from "../core/envs/gsm8k/fixture";
import { miniatureSpec, writeSpec } from "../core/steps/experiments/fixtures";
import { cliInProcess } from "./in-process-cli";

const REFUSAL = "give a path outside any run folder (no command writes over a run's own files)";

describe("reliability: no command writes over a run's files; smaller holes", function () {
  this.timeout(120_000);
  let ws: string;
  let run: string;
  let config: AgentLabConfig;
  /** Every file of the run folder and its bytes. */
  const snapshot = () =>
    Object.fromEntries(readdirSync(run).map((f) => [f, readFileSync(join(run, f)).toString("base64")]));

  before(async () => {
    ws = mkdtempSync(join(tmpdir(), "agent-lab-run-files-"));
    await writeGsm8kSplits(join(ws, "data", "gsm8k"), fixtureRecords(520, 0), fixtureRecords(10, 10_000), "fixture");
    writeFileSync(join(ws, "agent-lab.json"), JSON.stringify({ env: "gsm8k" }));
    config = mergeConfig({ dataDir: "data", runsDir: "runs", env: "gsm8k", concurrency: 2 });
    const tok = await offlineTokenizer("qwen3");
    const r = await scriptedEval({
      workspaceDir: ws,
      config,
      name: "g",
      split: "train",
      limit: 6,
      policy: new ScriptedPolicy(tok, () => "\\boxed{0}"),
    });
    run = r.runDir;
  });
  after(() => rmSync(ws, { recursive: true, force: true }));

  for (const file of ["episodes.jsonl", "manifest.json"]) {
    it(`export-chat --out RUN/${file} is refused in one line; the run is byte-unchanged and still shows`, async () => {
      const before = snapshot();
      const out = join(run, file);
      const cli = await cliInProcess(["export-chat", run, "--out", out, "--workspace", ws]);
      assert.equal(cli.code, 1);
      assert.equal(cli.err, `agent-lab export-chat: --out ${out} is inside the run folder ${run}: ${REFUSAL}`);
      assert.deepEqual(snapshot(), before);
      assert.equal((await cliInProcess(["show", run, "--workspace", ws])).code, 0);
    });
  }

  it("export-chat --out RUN (the folder itself), and prepare, gen-tasks, demo, pipeline and index writing inside a run, are refused", async () => {
    const before = snapshot();
    const self = await cliInProcess(["export-chat", run, "--out", run, "--workspace", ws]);
    assert.equal(self.err, `agent-lab export-chat: --out ${run} is the run folder ${run}: ${REFUSAL}`);
    // An sft.jsonl outside any run folder is not written over by its own export either.
    const loose = join(ws, "loose-sft.jsonl");
    writeFileSync(loose, '{"id": "q1"}\n');
    const looseBytes = readFileSync(loose);
    const overLoose = await cliInProcess(["export-chat", loose, "--out", loose, "--workspace", ws]);
    assert.equal(
      overLoose.err,
      `agent-lab export-chat: --out ${loose} is the file being exported: give another path for the chat JSONL`,
    );
    assert.deepEqual(readFileSync(loose), looseBytes);
    const data = join(run, "data");
    const prepare = await cliInProcess([
      "prepare",
      "--env",
      "gsm8k",
      "--train",
      join(ws, "data", "gsm8k", "train.jsonl"),
      "--test",
      join(ws, "data", "gsm8k", "test.jsonl"),
      "--out",
      data,
      "--workspace",
      ws,
    ]);
    assert.equal(prepare.code, 1);
    assert.equal(prepare.err, `agent-lab prepare: --out ${data} is inside the run folder ${run}: ${REFUSAL}`);
    const candidates = join(ws, "candidates.jsonl");
    writeFileSync(candidates, "");
    const gen = await cliInProcess(["gen-tasks", "--out", run, "--candidates", candidates, "--workspace", ws]);
    assert.equal(gen.code, 1);
    assert.equal(gen.err, `agent-lab gen-tasks: --out ${run} is the run folder ${run}: ${REFUSAL}`);
    // The other commands that write where they are told: a workspace (--dir) or a data folder (--data).
    const inside = join(run, "sub");
    for (const [command, flag] of [
      ["demo", "--dir"],
      ["pipeline", "--dir"],
      ["index", "--data"],
    ]) {
      const r = await cliInProcess([command, flag, inside, ...(command === "index" ? ["--workspace", ws] : [])]);
      assert.equal(r.err, `agent-lab ${command}: ${flag} ${inside} is inside the run folder ${run}: ${REFUSAL}`);
    }
    assert.deepEqual(snapshot(), before);
  });

  it("a spec's data.path outside the workspace is refused at its line, and nothing of the file is read", async () => {
    const dir = mkdtempSync(join(ws, "spec-"));
    const spec = miniatureSpec({
      init: {
        kind: "sft",
        sft: { epochs: 1, batch: 8, lr: 0.01, data: { kind: "file", path: "../../../../etc/passwd" } },
      },
    });
    const file = writeSpec(dir, spec);
    const line =
      readFileSync(file, "utf8")
        .split("\n")
        .findIndex((l) => l.includes("etc/passwd")) + 1;
    const cli = await cliInProcess(["experiment", "run", file, "--dir", join(dir, "ws"), "--dry-run"]);
    assert.equal(cli.code, 1);
    assert.equal(
      cli.err,
      `agent-lab experiment: ${file}:${line}: init.sft.data.path: "../../../../etc/passwd" is outside the experiment's workspace: give a path relative to the workspace and inside it (copy the file into the workspace first)`,
    );
    assert.ok(!cli.out.includes("root:") && !cli.err.includes("root:"));
    assert.equal(existsSync(join(dir, "ws")), false);
  });

  it("sft-data --from-runs --min-reward 1e308 selects nothing: refused, no run written", async () => {
    const cli = await cliInProcess([
      "sft-data",
      "--from-runs",
      "g",
      "--min-reward",
      "1e308",
      "--name",
      "none",
      "--workspace",
      ws,
    ]);
    assert.equal(cli.code, 1);
    assert.equal(
      cli.err,
      "agent-lab sft-data: --min-reward 1e+308 selects no episode of g (their best reward is 0): lower it or give other runs; no run was written",
    );
    assert.equal(existsSync(join(ws, "runs", "none")), false);
  });

  const fromRuns = (name: string, runs: string[], log: string[]) =>
    sftFromRuns({
      workspaceDir: ws,
      config,
      name,
      runs,
      minReward: 0,
      bestOf: 1,
      perTurn: false,
      command: ["test"],
      log: (l) => log.push(l),
    });

  it("--from-runs A A counts A once, and says so", () => {
    const once = fromRuns("once", ["g"], []);
    const log: string[] = [];
    const twice = fromRuns("twice", ["g", run], log);
    assert.deepEqual(log, [`--from-runs: ${run} is g again; each run counts once`]);
    assert.equal(twice.rows, once.rows);
    const sources = twice.manifest.fingerprint.from_runs as SourceRun[];
    assert.deepEqual(
      sources.map((s) => [s.name, s.used]),
      [["g", once.rows]],
    );
  });

  it("a source run still being written is said, and recorded in the lineage", () => {
    const lock = lockRunFolder(run, "agent-lab eval --name g");
    try {
      const log: string[] = [];
      const r = fromRuns("live", ["g"], log);
      assert.equal(log.length, 1);
      assert.match(
        log[0],
        /^note: g is still being written by agent-lab eval --name g \(pid \d+, since [^)]+\): its 6 episodes so far are used, and its manifest's lineage says so$/,
      );
      const source = (r.manifest.fingerprint.from_runs as SourceRun[])[0];
      assert.equal(source.being_written?.by, "agent-lab eval --name g");
      const stored = JSON.parse(readFileSync(join(r.runDir, "manifest.json"), "utf8")) as {
        fingerprint: { from_runs: SourceRun[] };
      };
      assert.deepEqual(stored.fingerprint.from_runs[0].being_written, source.being_written);
    } finally {
      lock.release();
    }
    const log: string[] = [];
    const done = fromRuns("finished", ["g"], log);
    assert.deepEqual(log, []);
    assert.equal((done.manifest.fingerprint.from_runs as SourceRun[])[0].being_written, undefined);
  });

  it("a transcript's title and heading go into markdown escaped", () => {
    const md = transcriptsMarkdown(
      [{ title: "run [x](javascript:alert(1)) <img src=x onerror=y>\n# **h**", messages: [] }],
      "iter_1 | `train` #",
    );
    assert.deepEqual(md.split("\n").slice(0, 4), [
      "# iter\\_1 \\| \\`train\\` \\#",
      "",
      "## run \\[x\\](javascript:alert(1)) &lt;img src=x onerror=y> \\# \\*\\*h\\*\\*",
      "",
    ]);
  });

  it("sftFromRuns refuses in core too (no caller gets an empty run)", () => {
    assert.throws(
      () =>
        sftFromRuns({
          workspaceDir: ws,
          config,
          name: "empty",
          runs: ["g"],
          minReward: 2,
          bestOf: 1,
          perTurn: false,
          command: ["test"],
        }),
      (e: unknown) => e instanceof UserError && /^--min-reward 2 selects no episode of g/.test(e.message),
    );
    assert.equal(existsSync(join(ws, "runs", "empty")), false);
  });
});
