import { strict as assert } from "node:assert";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  exitPath,
  jobProcessAlive,
  jobsDir,
  procCmdline,
  listJobRecords,
  newJobId,
  pidAlive,
  pruneFinishedJobs,
  statusFromDisk,
  writeJobRecord,
  type JobRecord,
} from "../../../src/extension/jobs/job-store";

function record(root: string, id: string, pid: number, extra: Partial<JobRecord> = {}): JobRecord {
  const r: JobRecord = {
    format: 1,
    id,
    title: id,
    command: ["eval", "--name", id],
    pid,
    started: new Date().toISOString(),
    log: join(jobsDir(root), `${id}.log`),
    ...extra,
  };
  writeJobRecord(root, r);
  return r;
}

describe("extension: job records on disk (re-attach after a reload)", () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), "agent-lab-jobs-"))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("derives each state from the exit record, else from whether the pid lives", () => {
    const alive = new Set([101]);
    const isAlive = (pid: number) => alive.has(pid);
    const running = record(root, "a-running", 101);
    const done = record(root, "b-done", 102);
    writeFileSync(exitPath(root, done.id), JSON.stringify({ code: 0, signal: null, ended: "x" }));
    const failed = record(root, "c-failed", 103);
    writeFileSync(exitPath(root, failed.id), JSON.stringify({ code: 1, signal: null, ended: "x" }));
    const cancelled = record(root, "d-cancelled", 104, { cancel_requested: true });
    writeFileSync(exitPath(root, cancelled.id), JSON.stringify({ code: 1, signal: null, ended: "x" }));
    const stale = record(root, "e-stale", 105); // dead pid, no exit record: killed -9 or reboot
    const { records, unreadable } = listJobRecords(root);
    assert.deepEqual(
      records.map((r) => r.id),
      ["a-running", "b-done", "c-failed", "d-cancelled", "e-stale"],
    );
    assert.deepEqual(unreadable, []);
    const states = Object.fromEntries(records.map((r) => [r.id, statusFromDisk(root, r, isAlive).state]));
    assert.deepEqual(states, {
      "a-running": "running",
      "b-done": "done",
      "c-failed": "failed",
      "d-cancelled": "cancelled",
      "e-stale": "failed",
    });
    assert.match(statusFromDisk(root, stale, isAlive).reason!, /without leaving an exit record/);
    void running;
  });

  it("skips a torn record instead of failing the whole list; a torn exit record counts as none", () => {
    record(root, "ok", 1);
    writeFileSync(join(jobsDir(root), "torn.json"), '{"id": "torn", "pid": ');
    const { records, unreadable } = listJobRecords(root);
    assert.deepEqual(
      records.map((r) => r.id),
      ["ok"],
    );
    assert.deepEqual(unreadable, ["torn.json"]);
    writeFileSync(exitPath(root, "ok"), '{"code": 0');
    assert.equal(statusFromDisk(root, records[0], () => true).state, "running");
  });

  it("prunes old finished jobs, never running ones", () => {
    for (let i = 0; i < 5; i++) {
      const r = record(root, `j${i}`, 1000 + i);
      if (i !== 1) writeFileSync(exitPath(root, r.id), JSON.stringify({ code: 0, signal: null, ended: "x" }));
    }
    const dropped = pruneFinishedJobs(root, 2, (pid) => pid === 1001);
    assert.deepEqual(dropped, ["j0", "j2"]);
    assert.deepEqual(
      listJobRecords(root).records.map((r) => r.id),
      ["j1", "j3", "j4"],
    );
    assert.ok(!readdirSync(jobsDir(root)).includes("j0.exit.json"));
  });

  it("a live pid that is not the job (reused after a reboot) does not count as the job", () => {
    const id = "20260101T000000-eval-abcd";
    assert.equal(
      jobProcessAlive(id, process.pid, () => `node\0-e\0…\0/w/runs/.jobs/${id}.exit.json\0`),
      true,
    );
    assert.equal(
      jobProcessAlive(id, process.pid, () => "bash\0-l\0"),
      false,
    );
    assert.equal(
      jobProcessAlive(id, process.pid, () => undefined),
      true,
      "no /proc: the pid decides",
    );
    assert.equal(
      jobProcessAlive(id, 2 ** 22 + 12345, () => id),
      false,
    );
    // This very process, as /proc sees it, is not any job.
    if (procCmdline(process.pid) !== undefined) assert.equal(jobProcessAlive(id, process.pid), false);
  });

  it("ids sort by start time and are file-safe; pidAlive knows this process and not a free pid", () => {
    const a = newJobId("eval", new Date("2026-01-02T03:04:05Z"));
    const b = newJobId("train sft/..", new Date("2026-01-02T03:04:06Z"));
    assert.match(a, /^20260102T030405-eval-[a-z0-9]+$/);
    assert.match(b, /^20260102T030406-train-sft-[a-z0-9-]*$/);
    assert.ok(a < b);
    assert.equal(pidAlive(process.pid), true);
    assert.equal(pidAlive(0), false);
    assert.equal(pidAlive(2 ** 22 + 12345), false);
  });
});
