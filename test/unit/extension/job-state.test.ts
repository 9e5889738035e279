import { strict as assert } from "node:assert";
import {
  initialStatus,
  isFinal,
  transition,
  type JobEvent,
  type JobStatus,
} from "../../../src/extension/jobs/job-state";

const run = (...events: JobEvent[]): JobStatus => events.reduce(transition, initialStatus());

describe("extension: job state machine", () => {
  it("starting → running → done on exit 0", () => {
    assert.equal(initialStatus().state, "starting");
    const s = run({ type: "spawned", pid: 42 });
    assert.deepEqual([s.state, s.pid], ["running", 42]);
    assert.equal(transition(s, { type: "exited", code: 0, signal: null }).state, "done");
  });

  it("a non-zero exit is failed with the reason; after a cancel request it is cancelled", () => {
    const failed = run({ type: "spawned", pid: 1 }, { type: "exited", code: 1, signal: null });
    assert.equal(failed.state, "failed");
    assert.match(failed.reason!, /exit code 1/);
    const killed = run({ type: "spawned", pid: 1 }, { type: "exited", code: null, signal: "SIGKILL" });
    assert.match(killed.reason!, /killed by SIGKILL/);
    const cancelled = run(
      { type: "spawned", pid: 1 },
      { type: "cancel-requested" },
      { type: "exited", code: 1, signal: null },
    );
    assert.equal(cancelled.state, "cancelled");
    // A job that finished its work before the cancel arrived is done, not cancelled.
    assert.equal(
      run({ type: "spawned", pid: 1 }, { type: "cancel-requested" }, { type: "exited", code: 0, signal: null }).state,
      "done",
    );
  });

  it("a process that vanished without an exit record is failed (or cancelled when asked to stop)", () => {
    const lost = run({ type: "spawned", pid: 1 }, { type: "lost" });
    assert.equal(lost.state, "failed");
    assert.match(lost.reason!, /without leaving an exit record/);
    assert.equal(run({ type: "spawned", pid: 1 }, { type: "cancel-requested" }, { type: "lost" }).state, "cancelled");
  });

  it("spawn failure fails the job; final states never change again", () => {
    const f = run({ type: "spawn-failed", message: "ENOENT" });
    assert.equal(f.state, "failed");
    assert.match(f.reason!, /could not start: ENOENT/);
    const done = run({ type: "spawned", pid: 1 }, { type: "exited", code: 0, signal: null });
    for (const e of [
      { type: "exited", code: 1, signal: null },
      { type: "lost" },
      { type: "spawned", pid: 9 },
      { type: "cancel-requested" },
    ] as JobEvent[]) {
      assert.equal(transition(done, e), done);
    }
    assert.ok(
      isFinal("done") && isFinal("failed") && isFinal("cancelled") && !isFinal("running") && !isFinal("starting"),
    );
  });
});
