/**
 * `agent-lab ckpt info|ttl|publish|unpublish|download|delete` and `ckpt --remote` end to end: the
 * real CLI against a real `serve-local` process holding the workspace's checkpoints. Refusals are
 * one exact line and change nothing.
 */
import assert from "node:assert/strict";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChildProcess } from "node:child_process";
import { TinkerService } from "../../../src/core/base/tinker";
import { sftDatum } from "../../../src/core/base/tinker/wire/builders";
import type { CheckpointEntry } from "../../../src/core/base/checkpoints/registry";
import { runCli, startCli, waitFor, type CliResult } from "./cli-process";

describe("cli/ckpt lifecycle", function () {
  this.timeout(180_000);
  let ws: string;
  let server: { child: ChildProcess; done: Promise<CliResult> };
  let url: string;
  let port: string;
  let service: TinkerService;
  const sft = { state: "", sampler: "" };
  const grpo = { state: "", sampler: "" };
  let stray = "";

  const ckpt = (...args: string[]) => runCli(["ckpt", ...args, "--workspace", ws, "--local-port", port]);
  const listed = async () =>
    new Map((await service.listUserCheckpoints()).checkpoints.map((c) => [c.tinker_path, c] as const));
  const register = (e: Partial<CheckpointEntry>) =>
    appendFileSync(
      join(ws, "runs", "checkpoints.jsonl"),
      JSON.stringify({ base_model: "Qwen/Qwen3.5-4B", data_hash: "x", step: 1, kind: "sft", created: "", ...e }) + "\n",
    );

  before(async () => {
    ws = mkdtempSync(join(tmpdir(), "ckpt-lifecycle-"));
    mkdirSync(join(ws, "runs"), { recursive: true });
    server = await startCli(["serve-local", "--port", "0", "--dir", join(ws, ".cache", "local-backend")]);
    let out = "";
    server.child.stdout!.on("data", (d) => (out += d));
    await waitFor(() => /listening on http:\/\/127\.0\.0\.1:\d+/.test(out), 60_000, "the listening line");
    url = /listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(out)![1];
    port = /:(\d+)$/.exec(url)![1];
    service = new TinkerService({ apiKey: "tml-local", baseUrl: url, log: () => {} });
    const save = async (name: string, into: { state: string; sampler: string }) => {
      const tc = await service.createLoraTrainingClient({ baseModel: "Qwen/Qwen3.5-4B", rank: 4 });
      await tc.forwardBackward([sftDatum([1, 2, 3, 4], [0, 1, 1, 1])], "cross_entropy").result();
      into.state = (await tc.saveState(name).result()).path;
      into.sampler = (await tc.saveWeightsForSampler(name).result()).path;
    };
    await save("e1", sft);
    await save("s1", grpo);
    const other = { state: "", sampler: "" };
    await save("stray", other);
    stray = other.state;
    register({ name: "sft-e1", state_path: sft.state, sampler_path: sft.sampler, parent: null, run: "runs/sft" });
    register({
      name: "grpo-s1",
      state_path: grpo.state,
      sampler_path: grpo.sampler,
      parent: "sft-e1",
      run: "runs/grpo",
      kind: "grpo",
    });
    // The stray run's sampler is registered, its state is not: --remote lists only the state.
    register({ name: "other", state_path: other.sampler, sampler_path: other.sampler, parent: null, run: "runs/o" });
  });

  after(async () => {
    service?.close();
    server?.child.kill("SIGTERM");
    await server?.done;
    rmSync(ws, { recursive: true, force: true });
  });

  it("info prints the service's view of both of a name's checkpoints", async () => {
    const r = await ckpt("info", "sft-e1");
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split("\n");
    assert.deepEqual(
      lines.map((l) => l.split("  ")[0]),
      [sft.state, sft.sampler],
    );
    for (const l of lines) assert.match(l, / {2}\d+\.\d MB {2}created \S+ {2}never expires {2}private$/);
  });

  it("ttl: refuses ≤ 0 (nothing changes), sets days with an expiry warning under 2 days, none removes it", async () => {
    const registryBefore = readFileSync(join(ws, "runs", "checkpoints.jsonl"), "utf8");
    for (const bad of ["0", "0.0", "-3", "soon"]) {
      const r = await ckpt("ttl", "sft-e1", bad);
      assert.equal(r.code, 1);
      assert.equal(
        r.stderr.trim(),
        `agent-lab ckpt: TTL must be a number of days above 0, or "none" to remove the expiry; got "${bad}"`,
      );
    }
    assert.equal((await listed()).get(sft.state)?.expires_at, undefined);
    assert.equal((await listed()).get(sft.sampler)?.expires_at, undefined);
    assert.equal(readFileSync(join(ws, "runs", "checkpoints.jsonl"), "utf8"), registryBefore);

    const one = await ckpt("ttl", "sft-e1", "1.5");
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, new RegExp(`^${escape(sft.state)}  expires \\S+ \\(in 1\\.5 days\\)$`, "m"));
    assert.match(
      one.stderr,
      /^warning: sft-e1 \(tinker:\/\/\S+\) expires in 1\.5 days, within 2 days; extend it with agent-lab ckpt ttl sft-e1 DAYS$/m,
    );
    const expires = Date.parse((await listed()).get(sft.sampler)!.expires_at!);
    assert.ok(Math.abs(expires - Date.now() - 1.5 * 86_400_000) < 60_000);

    const none = await ckpt("ttl", "sft-e1", "none");
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout, `${sft.state}  never expires\n${sft.sampler}  never expires\n`);
    assert.equal((await listed()).get(sft.state)?.expires_at, undefined);
  });

  it("publish and unpublish a single path", async () => {
    const pub = await ckpt("publish", sft.sampler);
    assert.equal(pub.stdout, `${sft.sampler}  public\n`);
    assert.equal((await listed()).get(sft.sampler)?.public, true);
    assert.equal((await listed()).get(sft.state)?.public, false);
    const unpub = await ckpt("unpublish", sft.sampler);
    assert.equal(unpub.stdout, `${sft.sampler}  private\n`);
    assert.equal((await listed()).get(sft.sampler)?.public, false);
  });

  it("download extracts the same bytes into a folder, with progress; an existing folder is refused without --force", async () => {
    const out = join(ws, "dl");
    const r = await ckpt("download", "sft-e1", "state", "--out", out);
    assert.equal(r.code, 0, r.stderr);
    const folder = join(out, sft.state.replace("tinker://", "").split("/").join("_"));
    assert.match(
      r.stdout,
      new RegExp(`^downloaded ${escape(sft.state)} \\(\\d+\\.\\d MB, 4 files\\) to ${escape(folder)}\\n$`),
    );
    assert.match(r.stderr, /downloading .*\(100%\)/);
    const runId = sft.state.slice("tinker://".length).split("/")[0];
    const source = join(ws, ".cache", "local-backend", "runs", encodeURIComponent(runId), "weights", "e1");
    for (const f of ["weights.bin", "optimizer.bin", "model.json"])
      assert.ok(readFileSync(join(folder, f)).equals(readFileSync(join(source, f))), f);
    const again = await ckpt("download", "sft-e1", "state", "--out", out);
    assert.equal(again.code, 1);
    assert.equal(
      again.stderr.trim(),
      `agent-lab ckpt: ${folder} exists; pass --force to replace it, or choose another --out folder`,
    );
    assert.equal((await ckpt("download", "sft-e1", "state", "--out", out, "--force")).code, 0);
  });

  it("--remote lists the account's checkpoints the workspace has not registered", async () => {
    const r = await runCli(["ckpt", "--remote", "--workspace", ws, "--local-port", port]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split("\n");
    assert.deepEqual(
      lines.slice(0, -1).map((l) => l.split("  ")[0]),
      [stray],
    );
    assert.equal(lines.at(-1), "1 checkpoint on the local backend not in this workspace (of 6)");
  });

  it("status --json gives every registered name's records (expiry, public) for the Checkpoints view", async () => {
    await ckpt("publish", grpo.sampler);
    await ckpt("ttl", grpo.state, "3");
    const r = await ckpt("status", "--json");
    assert.equal(r.code, 0, r.stderr);
    const rows = JSON.parse(r.stdout) as {
      name: string;
      backend: string;
      state: { tinker_path: string; expires_at?: string; public: boolean } | null;
      sampler: { tinker_path: string; public: boolean } | null;
    }[];
    assert.deepEqual(rows.map((x) => [x.name, x.backend]).sort(), [
      ["grpo-s1", "local"],
      ["other", "local"],
      ["sft-e1", "local"],
    ]);
    const g = rows.find((x) => x.name === "grpo-s1")!;
    assert.equal(g.sampler?.public, true);
    assert.ok(g.state?.expires_at);
    assert.equal(rows.find((x) => x.name === "sft-e1")!.state?.expires_at, undefined);
    await ckpt("unpublish", grpo.sampler);
    await ckpt("ttl", grpo.state, "none");
  });

  it("refuses an unknown name or path in one line for every verb, changing nothing", async () => {
    const registry = join(ws, "runs", "checkpoints.jsonl");
    const registryBefore = readFileSync(registry, "utf8");
    const before = await listed();
    const sftRun = sft.state.slice("tinker://".length).split("/")[0];
    const unknownInRun = `tinker://${sftRun}/weights/nope`;
    const unknownRun = "tinker://nope:train:9/weights/e1";
    const cases: [string[], string][] = [
      [["info", "nope"], `no checkpoint named "nope" in ${registry}; known names: sft-e1, grpo-s1, other`],
      [["delete", "nope", "--yes"], `no checkpoint named "nope" in ${registry}; known names: sft-e1, grpo-s1, other`],
      [
        ["ttl", "tinker://bogus", "3"],
        `"tinker://bogus" is not a Tinker checkpoint path (it needs exactly three parts); expected tinker://<run id>/weights|sampler_weights/<name>`,
      ],
      [
        ["ttl", unknownInRun, "3"],
        `no checkpoint at ${unknownInRun} on the local backend (it was deleted or has expired)`,
      ],
      [
        ["publish", unknownInRun],
        `no checkpoint at ${unknownInRun} on the local backend (it was deleted or has expired)`,
      ],
      [
        ["download", unknownInRun, "--out", join(ws, "dl-nope")],
        `no checkpoint at ${unknownInRun} on the local backend (it was deleted or has expired)`,
      ],
      [
        ["delete", unknownInRun, "--yes", "--force"],
        `no checkpoint at ${unknownInRun} on the local backend (it was deleted or has expired)`,
      ],
      [
        ["delete", unknownRun, "--yes", "--force", "--backend", "local"],
        `no checkpoint at ${unknownRun} on the local backend (it was deleted or has expired)`,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await ckpt(...args);
      assert.equal(r.code, 1, args.join(" "));
      assert.equal(r.stderr.trim(), `agent-lab ckpt: ${message}`, args.join(" "));
      assert.equal(r.stdout, "", args.join(" "));
    }
    assert.deepEqual(await listed(), before);
    assert.equal(readFileSync(registry, "utf8"), registryBefore);
    assert.equal(existsSync(join(ws, "dl-nope")), false);
  });

  it("delete: refused while a registered checkpoint was trained from it, refused without --yes naming what is lost, then deletes", async () => {
    const needed = await ckpt("delete", "sft-e1", "--yes");
    assert.equal(needed.code, 1);
    assert.equal(
      needed.stderr.trim(),
      "agent-lab ckpt: sft-e1 is still needed: grpo-s1 (was trained from it); pass --force to delete it anyway",
    );
    const unconfirmed = await ckpt("delete", "grpo-s1");
    assert.equal(unconfirmed.code, 1);
    assert.match(
      unconfirmed.stderr.trim(),
      new RegExp(
        `^agent-lab ckpt: deleting grpo-s1 removes ${escape(grpo.state)}, ${escape(grpo.sampler)} \\(\\d+\\.\\d MB\\) from the local backend for good; pass --yes to confirm$`,
      ),
    );
    const before = await listed();
    for (const p of [sft.state, sft.sampler, grpo.state, grpo.sampler]) assert.ok(before.has(p), p);

    const done = await ckpt("delete", "grpo-s1", "--yes");
    assert.equal(done.stdout, `deleted ${grpo.state}\ndeleted ${grpo.sampler}\n`);
    const forced = await ckpt("delete", "sft-e1", "--yes", "--force");
    assert.equal(forced.code, 0, forced.stderr);
    const after = await listed();
    for (const p of [sft.state, sft.sampler, grpo.state, grpo.sampler]) assert.ok(!after.has(p), p);

    const gone = await ckpt("info", "grpo-s1");
    assert.equal(gone.code, 1);
    assert.equal(
      gone.stderr.trim(),
      `agent-lab ckpt: no checkpoint at ${grpo.state}, ${grpo.sampler} on the local backend (it was deleted or has expired)`,
    );
  });

  it("keeps `ckpt NAME [state]` and --list working", async () => {
    assert.equal((await ckpt("sft-e1", "state")).stdout, `${sft.state}\n`);
    assert.match((await ckpt("--list")).stdout, /^grpo-s1\tgrpo\tstep 1\tparent sft-e1\t/m);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
