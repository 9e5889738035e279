/**
 * `agent-lab sft-data` and `agent-lab spend` through the real CLI, as child processes: kill -9
 * mid-run then --resume (at most the questions in flight are lost, none is decided twice), SIGTERM
 * (a clean stop with status "interrupted"), and the workspace's spend.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readAttempts, readSftRows, sftPath } from "../../../../../src/core/steps/sft";
import { runCli, startCli, waitFor } from "../../../cli/cli-process";
import { prepareSyntheticWorkspace } from "../../../../helpers/synthetic-workspace";

const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0);

describe("cli: sft-data (kill -9, SIGTERM, resume) and spend", function () {
  this.timeout(120_000);
  let ws: string;

  before(async () => {
    // A synthetic workspace (the demo's world): real prepare and index, the heuristic reader as teacher.
    ws = mkdtempSync(join(tmpdir(), "agent-lab-sft-cli-"));
    writeFileSync(join(ws, "agent-lab.json"), JSON.stringify({ dataDir: "data", runsDir: "runs" }));
    await prepareSyntheticWorkspace(ws, { seed: 7, train: 120, dev: 700 }, { rawDir: join(ws, "hotpot") });
  });
  after(() => ws && rmSync(ws, { recursive: true, force: true }));

  const args = (name: string) => [
    "sft-data",
    "--workspace",
    ws,
    "--name",
    name,
    "--teacher",
    "scripted",
    "--questions",
    "60",
    "--tries",
    "2",
    "--concurrency",
    "4",
  ];

  it("kill -9 mid-run loses at most the questions in flight; --resume decides each remaining question once", async () => {
    const run = join(ws, "runs", "k9");
    const { child, done } = await startCli([...args("k9"), "--scripted-delay-ms", "40"]);
    await waitFor(() => lines(join(run, "attempts.jsonl")) >= 10, 60_000, "10 decided questions");
    child.kill("SIGKILL");
    assert.equal((await done).signal, "SIGKILL");
    const before = readAttempts(run).map((a) => a.id);
    const keptBefore = readSftRows(sftPath(run)).map((r) => r.id);
    assert.ok(before.length >= 10 && before.length < 60, `${before.length} decided`);

    const resumed = await runCli([...args("k9"), "--resume"]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(
      resumed.stdout,
      new RegExp(`resuming: ${before.length} questions already decided, ${60 - before.length} to go`),
    );
    const final =
      /kept (\d+)\/60 questions {2}\| {2}solved@2 ([\d.]+)% {2}\| {2}avg searches ([\d.]+) {2}\| {2}\$0\.00/.exec(
        resumed.stdout,
      );
    assert.ok(final, resumed.stdout);
    const attempts = readAttempts(run);
    assert.equal(attempts.length, 60);
    assert.equal(new Set(attempts.map((a) => a.id)).size, 60, "no question decided twice");
    assert.deepEqual(
      attempts.slice(0, before.length).map((a) => a.id),
      before,
      "decided questions were kept, not redone",
    );
    const rows = readSftRows(sftPath(run));
    assert.equal(lines(sftPath(run)), rows.length, "no duplicate or torn line left in sft.jsonl");
    assert.equal(rows.length, Number(final[1]));
    assert.deepEqual(
      rows.slice(0, keptBefore.length).map((r) => r.id),
      keptBefore,
    );
    const manifest = JSON.parse(readFileSync(join(run, "manifest.json"), "utf8"));
    assert.equal(manifest.status, "done");
    assert.equal(manifest.fingerprint.source.role, "teacher");
    assert.equal(manifest.fingerprint.source.kind, "scripted");
  });

  it("SIGTERM stops cleanly: what is written stays, status 'interrupted', exit 1 with how to continue", async () => {
    const run = join(ws, "runs", "term");
    const { child, done } = await startCli([...args("term"), "--scripted-delay-ms", "40"]);
    await waitFor(() => lines(join(run, "attempts.jsonl")) >= 4, 60_000, "4 decided questions");
    child.kill("SIGTERM");
    const r = await done;
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /SIGTERM: stopping/);
    assert.match(r.stderr, /continue with the same command plus --resume/);
    const manifest = JSON.parse(readFileSync(join(run, "manifest.json"), "utf8"));
    assert.equal(manifest.status, "interrupted");
    assert.equal(manifest.counts.questions, lines(join(run, "attempts.jsonl")));
    assert.equal(manifest.output.rows, lines(sftPath(run)));
  });

  it("user mistakes are one-line errors: --backend with --teacher, a negative --budget, --questions 0, a train range past the end", async () => {
    const base = ["sft-data", "--workspace", ws, "--name", "bad"];
    const cases: [string[], RegExp][] = [
      [["--teacher", "scripted", "--backend", "tinker"], /--backend .* or --teacher .*not both/],
      [["--teacher", "scripted", "--budget=-1"], /--budget must be a number ≥ 0 \(USD\), got "-1"/],
      [["--teacher", "scripted", "--questions", "0"], /--questions must be an integer in \[1, 100000\], got "0"/],
      [["--teacher", "scripted", "--offset", "5000"], /no train questions in \[5000, 6500\)/],
    ];
    for (const [extra, message] of cases) {
      const r = await runCli([...base, ...extra]);
      assert.equal(r.code, 1, `${extra.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
    }
    assert.ok(!existsSync(join(ws, "runs", "bad")), "nothing written");
  });

  it("agent-lab spend totals the runs' ledgers (and a ledger-less eval run's summary); --today filters by day", async () => {
    const paid = join(ws, "runs", "paid-eval");
    mkdirSync(paid, { recursive: true });
    const now = new Date().toISOString();
    writeFileSync(
      join(paid, "ledger.jsonl"),
      JSON.stringify({
        time: now,
        kind: "eval",
        tokens: { prefill: 2000, sampled: 80, trained: 0 },
        usd: 1.25,
        cumulative_usd: 1.25,
      }) + "\n",
    );
    const old = join(ws, "runs", "old-eval");
    mkdirSync(old, { recursive: true });
    writeFileSync(join(old, "summary.json"), JSON.stringify({ usd_total: 0.5, updated: "2020-01-01T00:00:00.000Z" }));

    const all = await runCli(["spend", "--workspace", ws]);
    assert.equal(all.code, 0, all.stderr);
    assert.match(all.stdout, /^spend, all time:/);
    assert.match(all.stdout, /paid-eval +\$ +1\.2500 +eval \$1\.2500/);
    assert.match(all.stdout, /old-eval +\$ +0\.5000 .*\(from summary\.json\)/);
    assert.match(all.stdout, /k9 +\$ +0\.0000 +sample \$0\.0000 +tokens \d+ prefill/);
    assert.match(all.stdout, /total +\$ +1\.7500/);
    assert.match(all.stdout, /today +\$ +1\.2500/);

    const today = await runCli(["spend", "--workspace", ws, "--today", "--json"]);
    const json = JSON.parse(today.stdout);
    assert.equal(json.totalUsd, 1.25);
    assert.ok(!json.runs.some((r: { name: string }) => r.name === "old-eval"));
    const bad = await runCli(["spend", "--workspace", ws, "--since", "yesterday-ish"]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--since must be a date/);
  });
});
