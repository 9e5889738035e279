import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UserError } from "../../../../../src/core/base/errors";
import {
  changedFields,
  describeHolder,
  isRunFolder,
  lockRunFolder,
  openRunForWriting,
  refuseWriteIntoRun,
  releaseHeldLocks,
  RUN_MARKERS,
  runFile,
  runWriter,
} from "../../../../../src/core/base/runs/run-folder";
import { REPO } from "../../../../helpers/repo";

/** node:fs itself (not an import's copy of its bindings), so a test can step into the module's renames. */
const nodeFs = createRequire(__filename)("node:fs") as typeof import("node:fs");

/** Who the lock file of `run` names (pid and what), to check who took it. */
function lockOf(run: string): { pid: number; what: string } {
  const held = JSON.parse(readFileSync(runFile(run, "lock"), "utf8")) as { pid: number; what: string };
  return { pid: held.pid, what: held.what };
}

/** A child that takes the lock of `dir` through the real module and holds it until killed. */
function holder(dir: string): Promise<{ pid: number; kill: (sig?: NodeJS.Signals) => Promise<void> }> {
  const code = `const { lockRunFolder } = require(${JSON.stringify(join(REPO, "src/core/base/runs/run-folder.ts"))}); lockRunFolder(process.argv[1], "agent-lab eval --name r"); console.log("locked"); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["--import", "tsx", "-e", code, dir], {
    cwd: REPO,
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      if (d.toString().includes("locked")) {
        resolve({
          pid: child.pid!,
          kill: (sig = "SIGKILL") =>
            new Promise((done) => {
              child.once("exit", () => done());
              child.kill(sig);
            }),
        });
      }
    });
    child.once("exit", (c) => reject(new Error(`holder exited with ${c}`)));
  });
}

/** A pid that was alive a moment ago and is gone now. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ["-e", "console.log(process.pid)"]).stdout.toString().trim());
}

/**
 * `n` processes take the lock of `run` through the real module at the same moment: each loads the
 * module and says "ready", and all are told "go" together (loading takes far longer than taking).
 * Resolves to what each printed: "won" (held for 3 s, so no later taker finds it free) or "refused".
 */
async function race(run: string, n: number): Promise<string[]> {
  const code = `const { lockRunFolder } = require(${JSON.stringify(join(REPO, "src/core/base/runs/run-folder.ts"))}); console.log("ready"); process.stdin.once("data", () => { try { lockRunFolder(process.argv[1], "p" + process.pid); console.log("won"); setTimeout(() => process.exit(0), 3000); } catch (e) { console.log("refused"); process.exit(0); } });`;
  const takers = Array.from({ length: n }, () =>
    spawn(process.execPath, ["--import", "tsx", "-e", code, run], { cwd: REPO }),
  );
  const outputs = takers.map((c) => {
    let out = "";
    const ready = new Promise<void>((resolve) =>
      c.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("ready")) resolve();
      }),
    );
    const exited = new Promise<string>((resolve) => c.on("exit", () => resolve(out.replace("ready", "").trim())));
    return { ready, exited };
  });
  await Promise.all(outputs.map((o) => o.ready));
  for (const c of takers) c.stdin.write("go\n");
  return Promise.all(outputs.map((o) => o.exited));
}

describe("runs/run-folder: one writer per run, checked resumes", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-runfolder-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses a second writer while a live process holds the lock, naming it; takes over after kill -9", async function () {
    this.timeout(30_000);
    const run = join(dir, "r");
    const h = await holder(run);
    assert.throws(
      () => lockRunFolder(run, "agent-lab eval --name r --resume"),
      (e: Error) => {
        assert.match(
          e.message,
          new RegExp(
            `^${run.replace(/[/\\]/g, ".")} is being written by agent-lab eval --name r \\(pid ${h.pid}, since .*\\): wait for it to finish or stop it first \\(one writer per run folder\\)$`,
          ),
        );
        return true;
      },
    );
    await h.kill("SIGKILL");
    const lock = lockRunFolder(run, "agent-lab eval --name r --resume");
    const held = JSON.parse(readFileSync(runFile(run, "lock"), "utf8"));
    assert.equal(held.pid, process.pid);
    lock.release();
    assert.equal(existsSync(runFile(run, "lock")), false);
  });

  it("names the extension's job when the holder is one", () => {
    const run = join(dir, "r");
    process.env.AGENT_LAB_JOB = "7f3a";
    try {
      const lock = lockRunFolder(run, "agent-lab eval --name r");
      assert.throws(
        () => lockRunFolder(run, "x"),
        /being written by the extension's job 7f3a \(agent-lab eval --name r\) \(pid \d+/,
      );
      lock.release();
    } finally {
      delete process.env.AGENT_LAB_JOB;
    }
  });

  it("treats a lock file of a pid that is gone, or garbage, as stale", () => {
    const run = join(dir, "r");
    mkdirSync(run);
    writeFileSync(
      runFile(run, "lock"),
      JSON.stringify({ pid: deadPid(), process_started: 0, what: "old", since: new Date().toISOString() }),
    );
    const afterGone = lockRunFolder(run, "after a gone pid");
    assert.deepEqual(lockOf(run), { pid: process.pid, what: "after a gone pid" });
    afterGone.release();
    writeFileSync(runFile(run, "lock"), "{torn");
    const afterTorn = lockRunFolder(run, "after a torn lock");
    assert.deepEqual(lockOf(run), { pid: process.pid, what: "after a torn lock" });
    afterTorn.release();
    // No holder names a pid of 0 or below (they would ask about a process group, or every process:
    // both "alive"), a fraction, a string, or none at all (a bare pid, as index builds once wrote).
    const since = new Date().toISOString();
    for (const pid of [0, -1, 1.5, String(process.ppid), null]) {
      writeFileSync(runFile(run, "lock"), JSON.stringify({ pid, process_started: 0, what: "odd", since }));
      const taken = lockRunFolder(run, `after pid ${JSON.stringify(pid)}`);
      assert.deepEqual(lockOf(run), { pid: process.pid, what: `after pid ${JSON.stringify(pid)}` });
      taken.release();
    }
    for (const text of [String(process.ppid), "null", "[]"]) {
      writeFileSync(runFile(run, "lock"), text);
      const taken = lockRunFolder(run, `after ${text}`);
      assert.deepEqual(lockOf(run), { pid: process.pid, what: `after ${text}` });
      taken.release();
    }
  });

  it("takes over a lock whose pid is alive but belongs to a process started after the lock was taken (a reused pid)", async function () {
    if (process.platform !== "linux") this.skip(); // process start times are read from /proc
    this.timeout(30_000);
    const run = join(dir, "r");
    mkdirSync(run);
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    try {
      await new Promise((resolve) => child.once("spawn", resolve));
      const anHourAgo = new Date(Date.now() - 3_600_000).toISOString();
      writeFileSync(
        runFile(run, "lock"),
        JSON.stringify({ pid: child.pid, process_started: Date.now() - 7_200_000, what: "old", since: anHourAgo }),
      );
      const lock = lockRunFolder(run, "after a reused pid");
      assert.deepEqual(lockOf(run), { pid: process.pid, what: "after a reused pid" });
      lock.release();
      // The same live pid, holding a lock it took after it started, is a live holder: refused.
      writeFileSync(
        runFile(run, "lock"),
        JSON.stringify({ pid: child.pid, process_started: Date.now(), what: "live", since: new Date().toISOString() }),
      );
      assert.throws(() => lockRunFolder(run, "second"), /is being written by live \(pid \d+/);
    } finally {
      await new Promise((done) => {
        child.once("exit", done);
        child.kill("SIGKILL");
      });
    }
  });

  it("of many processes taking one lock at once, exactly one wins", async function () {
    this.timeout(60_000);
    const results = await race(join(dir, "r"), 6);
    assert.equal(results.filter((r) => r === "won").length, 1, results.join(","));
  });

  // Every taker reads the same stale holder; the first to move it aside wins, and a later taker
  // that moves the winner's fresh lock aside must put it back (run-folder.ts), or both would win.
  it("of many processes taking over one stale lock (a dead pid) at once, exactly one wins", async function () {
    this.timeout(60_000);
    const run = join(dir, "r");
    mkdirSync(run);
    writeFileSync(
      runFile(run, "lock"),
      JSON.stringify({ pid: deadPid(), process_started: 0, what: "crashed", since: new Date().toISOString() }),
    );
    const results = await race(run, 6);
    assert.equal(results.filter((r) => r === "won").length, 1, results.join(","));
  });

  // The race above is real but rarely lands in the narrow window between a taker's read of the stale
  // lock and its removal; here another taker takes the lock over exactly there, every time.
  it("a taker whose stale lock was taken over by another after its read leaves the fresh lock alone, and is refused", async function () {
    this.timeout(30_000);
    const run = join(dir, "r");
    mkdirSync(run);
    const file = runFile(run, "lock");
    writeFileSync(
      file,
      JSON.stringify({ pid: deadPid(), process_started: 0, what: "crashed", since: "2020-01-01T00:00:00.000Z" }),
    );
    const winner = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    await new Promise((resolve) => winner.once("spawn", resolve));
    const link = nodeFs.linkSync;
    let interleaved = false;
    nodeFs.linkSync = (existing, target) => {
      if (!interleaved && target === `${file}.takeover`) {
        interleaved = true;
        // Just before our turn to remove the stale lock, the other taker removes it and takes the lock.
        rmSync(file);
        const fresh = { pid: winner.pid, process_started: 0, what: "the other taker", since: new Date().toISOString() };
        writeFileSync(file, JSON.stringify(fresh) + "\n");
      }
      link(existing, target);
    };
    try {
      assert.throws(() => lockRunFolder(run, "the late taker"), /is being written by the other taker \(pid \d+/);
    } finally {
      nodeFs.linkSync = link;
      await new Promise((done) => {
        winner.once("exit", done);
        winner.kill("SIGKILL");
      });
    }
    assert.ok(interleaved, "the late taker never took its turn to remove the stale lock");
    assert.equal(lockOf(run).what, "the other taker");
    assert.deepEqual(readdirSync(run), [".lock"], "no takeover mark or temporary file left behind");
  });

  it("a new run refuses a folder holding a run; a resume refuses a folder holding none; a changed resume names the fields", () => {
    const run = join(dir, "r");
    assert.throws(
      () => openRunForWriting({ runDir: run, resume: true, what: "t", changes: () => [] }),
      new RegExp(
        `^UserError: nothing to resume: .*r holds no run \\(no manifest.json\\); run the same command without --resume to start it$`,
      ),
    );
    assert.equal(existsSync(runFile(run, "manifest")), false, "a refused resume writes nothing");
    const open = openRunForWriting({
      runDir: run,
      resume: false,
      what: "t",
      create: { lr: 1, nested: { k: 3 } },
      changes: () => [],
    });
    open.release();
    assert.throws(
      () => openRunForWriting({ runDir: run, resume: false, what: "t", changes: () => [] }),
      /already holds a run: pass --resume to continue it, or choose another --name/,
    );
    assert.throws(
      () =>
        openRunForWriting<{ lr: number; nested: { k: number } }>({
          runDir: run,
          resume: true,
          what: "t",
          changes: (old) => changedFields(old, { lr: 2, nested: { k: 3 } }),
        }),
      /cannot resume .*: its fingerprint differs in 1 field\(s\): lr: 1 → 2\. Resume with the settings/,
    );
    assert.equal(existsSync(runFile(run, "lock")), false, "a refused resume releases the lock");
  });
});

// Mutation-testing gaps (issue 31): the lock's own-process holder, its takeover mark, releases, the
// resume's stored manifest and messages, the field diff and the write rule.
describe("runs/run-folder: lock and resume edges", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-runfolder-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const writeLock = (run: string, holder: object) => {
    mkdirSync(run, { recursive: true });
    writeFileSync(runFile(run, "lock"), JSON.stringify(holder));
  };

  it("this process holding the lock is a live holder; a lock of this pid from another process start is stale", () => {
    const run = join(dir, "r");
    const lock = lockRunFolder(run, "first");
    const mine = JSON.parse(readFileSync(runFile(run, "lock"), "utf8")) as { process_started: number };
    assert.throws(() => lockRunFolder(run, "second"), /is being written by first \(pid \d+/);
    assert.equal(runWriter(run)?.what, "first");
    lock.release();
    assert.equal(runWriter(run), undefined, "released: nobody writes");
    // The same pid, but the lock names another start time: an earlier process that had this pid.
    // Taken after this process started, so only the start time tells it from this process's own.
    writeLock(run, {
      pid: process.pid,
      process_started: mine.process_started - 60_000,
      what: "earlier",
      since: new Date().toISOString(),
    });
    assert.equal(runWriter(run), undefined);
    const again = lockRunFolder(run, "after an earlier process of this pid");
    assert.deepEqual(lockOf(run), { pid: process.pid, what: "after an earlier process of this pid" });
    again.release();
  });

  it("runWriter names a live holder of another process, and nobody for a gone pid or no lock", async function () {
    this.timeout(30_000);
    const run = join(dir, "r");
    assert.equal(runWriter(run), undefined);
    const h = await holder(run);
    try {
      const w = runWriter(run);
      assert.equal(w?.pid, h.pid);
      assert.equal(w?.what, "agent-lab eval --name r");
      assert.equal(describeHolder(w!), `agent-lab eval --name r (pid ${h.pid}, since ${w!.since})`);
    } finally {
      await h.kill();
    }
    assert.equal(runWriter(run), undefined);
  });

  it("a pid alive and started before the lock was taken holds it (within the second the clocks round to)", async function () {
    if (process.platform !== "linux") this.skip();
    this.timeout(30_000);
    const run = join(dir, "r");
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    try {
      await new Promise((resolve) => child.once("spawn", resolve));
      // /proc's start time has a 10 ms tick and the boot time a 1 s one: a lock taken at the child's start is its own.
      writeLock(run, {
        pid: child.pid,
        process_started: 0,
        what: "just started",
        since: new Date(Date.now() - 500).toISOString(),
      });
      assert.equal(runWriter(run)?.what, "just started");
      writeLock(run, {
        pid: child.pid,
        process_started: 0,
        what: "later",
        since: new Date(Date.now() + 60_000).toISOString(),
      });
      assert.equal(runWriter(run)?.what, "later");
    } finally {
      await new Promise((done) => {
        child.once("exit", done);
        child.kill("SIGKILL");
      });
    }
  });

  it("a takeover mark left by a crashed taker is cleared after 10 s; a fresh one makes the taker wait, then give up", () => {
    const run = join(dir, "r");
    const stale = { pid: deadPid(), process_started: 0, what: "crashed", since: "2020-01-01T00:00:00.000Z" };
    writeLock(run, stale);
    const mark = `${runFile(run, "lock")}.takeover`;
    writeFileSync(mark, "1\n");
    const old = new Date(Date.now() - 11_000);
    utimesSync(mark, old, old);
    const lock = lockRunFolder(run, "after a crashed taker");
    assert.equal(lockOf(run).what, "after a crashed taker");
    assert.equal(existsSync(mark), false);
    lock.release();

    writeLock(run, stale);
    writeFileSync(mark, "1\n"); // another taker's turn that never ends
    const started = Date.now();
    assert.throws(
      () => lockRunFolder(run, "late"),
      (e: Error) =>
        e instanceof UserError &&
        e.message ===
          `${run}: could not take the writer lock (${runFile(run, "lock")}) after several tries; is another job starting on this run?`,
    );
    assert.ok(Date.now() - started >= 500, "it waited for the other taker's turn between tries");
    assert.equal(lockOf(run).what, "crashed", "the stale lock is left to the taker whose turn it is");
  });

  it("release removes only this taking's own lock, once", () => {
    const run = join(dir, "r");
    // Many rounds: a taking and the next one often fall in the same millisecond (the same `since`).
    for (let round = 0; round < 50; round++) {
      const first = lockRunFolder(run, "first");
      first.release();
      const next = lockRunFolder(run, "next");
      first.release(); // a spent handle: must not remove the next taking's lock
      assert.equal(lockOf(run).what, "next", `round ${round}`);
      next.release();
    }
    const second = lockRunFolder(run, "second");
    // Someone replaced the file (a takeover of a lock we held): our release leaves theirs.
    writeFileSync(
      runFile(run, "lock"),
      JSON.stringify({ pid: process.pid + 1, process_started: 0, what: "theirs", since: "x" }),
    );
    second.release();
    assert.equal(lockOf(run).what, "theirs");
  });

  it("release leaves a lock that names another pid or another taking, even one the same in every other field", () => {
    const run = join(dir, "r");
    const lock = runFile(run, "lock");
    for (const change of [{ pid: process.pid + 1 }, { since: "1999-01-01T00:00:00.000Z" }]) {
      const mine = lockRunFolder(run, "mine");
      const written = JSON.parse(readFileSync(lock, "utf8")) as Record<string, unknown>;
      const theirs = JSON.stringify({ ...written, ...change, what: "theirs" });
      writeFileSync(lock, theirs);
      mine.release();
      assert.equal(readFileSync(lock, "utf8"), theirs, JSON.stringify(change));
      rmSync(lock);
    }
  });

  it("an old handle of a lock that vanished leaves the new taking's lock, which exit still releases", () => {
    const run = join(dir, "r");
    const old = lockRunFolder(run, "old");
    rmSync(runFile(run, "lock")); // removed from under its holder (by hand)
    // A taking is told apart by its pid and its millisecond: let the clock move on.
    for (const t = Date.now(); Date.now() <= t + 1;);
    lockRunFolder(run, "new"); // never released by hand: left to the exit
    lockRunFolder(join(dir, "s"), "other");
    old.release();
    assert.equal(lockOf(run).what, "new");
    releaseHeldLocks(); // what the exit does
    assert.equal(existsSync(runFile(run, "lock")), false);
    assert.equal(existsSync(runFile(join(dir, "s"), "lock")), false);
  });

  it("a resume returns the stored manifest, stores what onResume returns, and names absent fields", () => {
    const run = join(dir, "r");
    openRunForWriting({ runDir: run, resume: false, what: "t", create: { lr: 1 }, changes: () => [] }).release();
    assert.deepEqual(JSON.parse(readFileSync(runFile(run, "manifest"), "utf8")), { lr: 1 });
    const kept = openRunForWriting<{ lr: number }>({ runDir: run, resume: true, what: "t", changes: () => [] });
    assert.deepEqual(kept.stored, { lr: 1 });
    assert.equal(lockOf(run).what, "t", "a resumed run holds the lock");
    kept.release();
    const resumed = openRunForWriting<{ lr: number; resumed?: number }>({
      runDir: run,
      resume: true,
      what: "t",
      changes: () => [],
      onResume: (m) => ({ ...m, resumed: 1 }),
    });
    assert.deepEqual(resumed.stored, { lr: 1 });
    resumed.release();
    assert.deepEqual(JSON.parse(readFileSync(runFile(run, "manifest"), "utf8")), { lr: 1, resumed: 1 });
    assert.throws(
      () =>
        openRunForWriting<{ lr: number }>({
          runDir: run,
          resume: true,
          what: "t",
          changes: (old) => changedFields(old, { ...old, seed: 3, extra: { a: 1 } }),
        }),
      (e: Error) =>
        e instanceof UserError &&
        e.message ===
          `cannot resume ${run}: its fingerprint differs in 2 field(s): extra.a: (absent) → 1; seed: (absent) → 3. ` +
            "Resume with the settings it was started with, or start a new run with another --name.",
    );
    const fresh = openRunForWriting({ runDir: join(dir, "new"), resume: false, what: "t", changes: () => [] });
    assert.equal(fresh.stored, undefined);
    assert.equal(existsSync(runFile(join(dir, "new"), "manifest")), false, "no create: the step writes its own");
    fresh.release();
  });

  it("a damaged manifest refuses the resume in one line and releases the lock", () => {
    const run = join(dir, "r");
    mkdirSync(run);
    writeFileSync(runFile(run, "manifest"), "{not json");
    assert.throws(
      () => openRunForWriting({ runDir: run, resume: true, what: "t", changes: () => [] }),
      (e: Error) =>
        e instanceof UserError &&
        e.message.startsWith(`${runFile(run, "manifest")}: not valid JSON (`) &&
        e.message.endsWith("); the run's manifest is damaged — restore it or start a new run with another --name"),
    );
    assert.equal(existsSync(runFile(run, "lock")), false);
  });

  it("changedFields: dotted leaves, arrays and null as leaves, absent as different, sorted, top-level skips", () => {
    assert.deepEqual(
      changedFields(
        { b: [1, 2], a: { x: 1, y: null }, seed: 1, same: "s", gone: undefined },
        { b: [1, 3], a: { x: 1, y: 0 }, seed: 2, same: "s", name: "n" },
        ["seed"],
      ),
      [
        { field: "a.y", was: null, now: 0 },
        { field: "b", was: [1, 2], now: [1, 3] },
        { field: "name", was: undefined, now: "n" },
      ],
    );
    assert.deepEqual(changedFields({ a: { seed: 1 } }, { a: { seed: 2 } }, ["seed"]), [
      { field: "a.seed", was: 1, now: 2 },
    ]);
  });

  it("a resume names a field the new settings lack as (absent)", () => {
    const run = join(dir, "r");
    openRunForWriting({
      runDir: run,
      resume: false,
      what: "t",
      create: { lr: 1, seed: 2 },
      changes: () => [],
    }).release();
    assert.throws(
      () =>
        openRunForWriting<{ lr: number; seed: number }>({
          runDir: run,
          resume: true,
          what: "t",
          changes: (old) => changedFields(old, { lr: old.lr }),
        }),
      /its fingerprint differs in 1 field\(s\): seed: 2 → \(absent\)\. Resume/,
    );
  });

  it("a process that exits without releasing its lock leaves no lock behind", async function () {
    this.timeout(30_000);
    const run = join(dir, "r");
    const code = `const { lockRunFolder } = require(${JSON.stringify(join(REPO, "src/core/base/runs/run-folder.ts"))}); lockRunFolder(process.argv[1], "a"); lockRunFolder(process.argv[2], "b"); console.log(require("node:fs").existsSync(process.argv[1] + "/.lock"));`;
    const child = spawnSync(process.execPath, ["--import", "tsx", "-e", code, run, join(dir, "s")], {
      cwd: REPO,
      encoding: "utf8",
    });
    assert.equal(child.stdout.trim(), "true", child.stderr);
    assert.equal(existsSync(runFile(run, "lock")), false);
    assert.equal(existsSync(runFile(join(dir, "s"), "lock")), false);
  });

  it("isRunFolder: any one marker file makes a folder a run", () => {
    for (const marker of RUN_MARKERS) {
      const d = join(dir, marker);
      mkdirSync(d);
      assert.equal(isRunFolder(d), false);
      writeFileSync(join(d, marker), "");
      assert.equal(isRunFolder(d), true, marker);
    }
  });

  it("refuseWriteIntoRun: inside or at a run is refused naming the flag and the run; own runs and a runs folder are not", () => {
    const run = join(dir, "runs", "r");
    mkdirSync(run, { recursive: true });
    writeFileSync(runFile(run, "episodes"), "");
    // The runs folder holds the checkpoint registry (checkpoints.jsonl), which alone is no run.
    writeFileSync(join(dir, "runs", "checkpoints.jsonl"), "");
    refuseWriteIntoRun(join(dir, "runs", "other", "out.jsonl"), { flag: "--out" });
    const inside = join(run, "episodes.jsonl");
    assert.throws(
      () => refuseWriteIntoRun(inside, { flag: "--out" }),
      (e: Error) =>
        e instanceof UserError &&
        e.message ===
          `--out ${inside} is inside the run folder ${run}: give a path outside any run folder (no command writes over a run's own files)`,
    );
    assert.throws(() => refuseWriteIntoRun(run, { flag: "--dir" }), /^UserError: --dir .* is the run folder /);
    refuseWriteIntoRun(run, { flag: "--dir", own: true });
    assert.throws(() => refuseWriteIntoRun(inside, { flag: "--out", own: true }), /is inside the run folder/);
    writeFileSync(runFile(run, "manifest"), JSON.stringify({ kind: "gen-tasks" }));
    refuseWriteIntoRun(run, { flag: "--dir", own: "gen-tasks" });
    assert.throws(() => refuseWriteIntoRun(run, { flag: "--dir", own: "eval" }), /is the run folder/);
    writeFileSync(runFile(run, "manifest"), "{damaged");
    assert.throws(() => refuseWriteIntoRun(run, { flag: "--dir", own: "gen-tasks" }), /is the run folder/);
    // A relative path is shown relative to the working directory.
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      assert.throws(
        () => refuseWriteIntoRun(join("runs", "r", "x"), { flag: "--out" }),
        (e: Error) =>
          e.message.startsWith(`--out ${join("runs", "r", "x")} is inside the run folder ${join("runs", "r")}:`),
      );
      process.chdir(run);
      assert.throws(
        () => refuseWriteIntoRun(".", { flag: "--out" }),
        (e: Error) => e.message.startsWith("--out . is the run folder .:"),
      );
      process.chdir(dir);
      assert.throws(
        () => refuseWriteIntoRun(join("runs", "r"), { flag: "--out" }),
        (e: Error) => e.message.startsWith(`--out ${join("runs", "r")} is the run folder ${join("runs", "r")}:`),
      );
    } finally {
      process.chdir(cwd);
    }
  });
});
