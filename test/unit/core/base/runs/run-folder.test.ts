import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lockRunFolder, openRunForWriting, runFile, changedFields } from "../../../../../src/core/base/runs/run-folder";
import { REPO } from "../../../../helpers/repo";

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
    const gone = spawnSync(process.execPath, ["-e", "console.log(process.pid)"]).stdout.toString().trim();
    writeFileSync(
      runFile(run, "lock"),
      JSON.stringify({ pid: Number(gone), process_started: 0, what: "old", since: new Date().toISOString() }),
    );
    lockRunFolder(run, "new").release();
    writeFileSync(runFile(run, "lock"), "{torn");
    lockRunFolder(run, "new").release();
  });

  it("of many processes taking one lock at once, exactly one wins", async function () {
    this.timeout(60_000);
    const run = join(dir, "r");
    const code = `const { lockRunFolder } = require(${JSON.stringify(join(REPO, "src/core/base/runs/run-folder.ts"))}); try { lockRunFolder(process.argv[1], "p" + process.pid); console.log("won"); setTimeout(() => {}, 3000); } catch (e) { console.log("refused"); }`;
    const results = await Promise.all(
      Array.from(
        { length: 6 },
        () =>
          new Promise<string>((resolve) => {
            const c = spawn(process.execPath, ["--import", "tsx", "-e", code, run], { cwd: REPO });
            let out = "";
            c.stdout.on("data", (d: Buffer) => (out += d.toString()));
            c.on("exit", () => resolve(out.trim()));
          }),
      ),
    );
    assert.equal(results.filter((r) => r === "won").length, 1, results.join(","));
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
