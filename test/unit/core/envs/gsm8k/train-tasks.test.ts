/**
 * `--train-tasks DIR`: a gen-tasks folder as GSM8K's training split — each task a GSM8K item that
 * the real grader grades against the task's answer; tasks overlapping val/test are refused with
 * the file:line of the task and of the eval item; a bad row names its line.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GSM8K } from "../../../../../src/core/envs/gsm8k/environment";
import { gradeReply } from "../../../../../src/core/envs/gsm8k";
import { FileFormatError, UserError } from "../../../../../src/core/base/errors";
import { sha256File } from "../../../../../src/core/base/runs/manifest";
import { offlineTokenizer } from "../../../../../src/core/base/chat";
import { mergeConfig } from "../../../../../src/core/envs/config";
import { writeGsm8kSplits } from "../../../../../src/core/envs/gsm8k";
import { ScriptedPolicy } from "../../../../../src/core/harness/policies/scripted";
import { collectSftData, readSftRows, sftPath } from "../../../../../src/core/steps/sft";
import { fixtureRecords } from "./fixture";

describe("gsm8k: generated tasks as the training split (--train-tasks)", () => {
  let root: string;
  let tasksDir: string;
  let dataDir: string;
  const task = (id: string, problem: string, answer: string) =>
    JSON.stringify({ id, problem, answer, solution_sha256: "0".repeat(64), solve_rate: 0.5 });
  const evalQuestion =
    "A baker makes 12 loaves every hour for 7 hours and sells all but 5 of them to the shop across the street. How many loaves does he sell?";

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "agent-lab-train-tasks-"));
    tasksDir = join(root, "tasks");
    dataDir = join(root, "data", "gsm8k");
    mkdirSync(tasksDir, { recursive: true });
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(
      join(dataDir, "val.jsonl"),
      JSON.stringify({ id: "train-00001", question: evalQuestion, answer: "#### 79", reference: "79" }) + "\n",
    );
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("reads each task as a GSM8K item graded by the real grader against the task's answer, and records the file's hash", () => {
    writeFileSync(
      join(tasksDir, "tasks.jsonl"),
      [
        task("t1", "Mia has 3 bags of 4 pears. How many pears?", "12"),
        task("t2", "A tank holds 2.5 liters per box for 4 boxes. Liters?", "10.0"),
      ].join("\n") + "\n",
    );
    const { items, record } = GSM8K.data.loadTrainTasks!(tasksDir, dataDir);
    assert.deepEqual(
      items.map((i) => [i.id, i.question.slice(0, 7), i.answers[0]]),
      [
        ["t1", "Mia has", "12"],
        ["t2", "A tank ", "10.0"],
      ],
    );
    assert.equal(gradeReply("3 × 4 = \\boxed{12}", items[0].solution).correct, true);
    assert.equal(gradeReply("\\boxed{10}", items[1].solution).correct, true);
    assert.equal(gradeReply("\\boxed{11}", items[0].solution).correct, false);
    assert.deepEqual(record, {
      tasks_dir: tasksDir,
      file: "tasks.jsonl",
      sha256: sha256File(join(tasksDir, "tasks.jsonl")),
      questions: 2,
    });
  });

  it("refuses a task that is an eval item (same text or a shared long n-gram), naming both lines", () => {
    const copy = evalQuestion.replace("12 loaves", "15 loaves");
    writeFileSync(
      join(tasksDir, "tasks.jsonl"),
      [task("t1", "Mia has 3 bags of 4 pears. How many pears?", "12"), task("t2", copy, "100")].join("\n") + "\n",
    );
    assert.throws(
      () => GSM8K.data.loadTrainTasks!(tasksDir, dataDir),
      (e: Error) =>
        e instanceof FileFormatError &&
        e.message.startsWith(
          `${join(tasksDir, "tasks.jsonl")}:2: task t2 overlaps val item on ${join(dataDir, "val.jsonl")}:1 (a shared long n-gram)`,
        ),
    );
  });

  it("sft-data --train-tasks samples the tasks, grades them against their answers, and hashes tasks.jsonl as data.train", async () => {
    const ws = join(root, "ws");
    await writeGsm8kSplits(join(ws, "data", "gsm8k"), fixtureRecords(520, 0), fixtureRecords(10, 10_000), "fixture");
    mkdirSync(join(ws, "tasks"));
    writeFileSync(
      join(ws, "tasks", "tasks.jsonl"),
      [
        task("t1", "Mia has 3 bags of 4 pears. How many pears?", "12"),
        task("t2", "Tom reads 5 pages a day for 6 days. Pages?", "30"),
      ].join("\n") + "\n",
    );
    const tok = await offlineTokenizer("qwen3");
    // Answers 12 to everything: right on t1 only.
    const policy = new ScriptedPolicy(tok, () => "\\boxed{12}");
    const config = mergeConfig({ dataDir: "data", runsDir: "runs", env: "gsm8k", concurrency: 2 });
    const r = await collectSftData({
      workspaceDir: ws,
      config,
      name: "sft",
      questions: 2,
      offset: 0,
      trainTasksDir: "tasks",
      tries: 1,
      temperature: 0,
      minF1: 1,
      role: "self",
      backend: "scripted",
      policy,
      resume: false,
      command: ["test"],
    });
    assert.deepEqual(
      readSftRows(sftPath(r.runDir)).map((row) => row.id),
      ["t1"],
    );
    assert.deepEqual(r.manifest.fingerprint.data.train, {
      file: join("tasks", "tasks.jsonl"),
      sha256: sha256File(join(ws, "tasks", "tasks.jsonl")),
    });
  });

  it("names the line of a bad row, and a folder without tasks.jsonl", () => {
    writeFileSync(
      join(tasksDir, "tasks.jsonl"),
      task("t1", "ok?", "1") + "\n" + JSON.stringify({ id: "t2", question: "no problem field" }) + "\n",
    );
    assert.throws(() => GSM8K.data.loadTrainTasks!(tasksDir, dataDir), /tasks\.jsonl:2: expected a gen-tasks task/);
    assert.throws(
      () => GSM8K.data.loadTrainTasks!(join(root, "none"), dataDir),
      (e: Error) => e instanceof UserError && /tasks\.jsonl is missing/.test(e.message),
    );
  });
});
