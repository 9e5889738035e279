/**
 * `agent-lab spend --tinker`: the workspace ledger against the service's billing usage for the same
 * hours. Against a real `serve-local` process the ledger's tokens match what the backend metered;
 * a ledger line the service never saw is named as a difference. The window arithmetic (hour-aligned,
 * ≤ 14-day windows) is checked on its own.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChildProcess } from "node:child_process";
import { TinkerService } from "../../../src/core/base/tinker";
import { sftDatum } from "../../../src/core/base/tinker/wire/builders";
import { CostLedger } from "../../../src/core/base/ledger";
import { billingPeriod, billingWindows, reconcile } from "../../../src/core/base/ledger/reconcile";
import { runCli, startCli, waitFor, type CliResult } from "./cli-process";

const HOUR = 3_600_000;

describe("cli/spend --tinker", function () {
  this.timeout(120_000);

  it("cuts the period into hour-aligned windows of at most 14 days", () => {
    const now = new Date("2026-12-05T10:26:44Z");
    const p = billingPeriod(new Date("2026-11-01T09:30:00Z"), now);
    assert.equal(p.start.toISOString(), "2026-11-01T09:00:00.000Z");
    assert.equal(p.end.toISOString(), "2026-12-05T11:00:00.000Z");
    const w = billingWindows(p.start, p.end);
    assert.deepEqual(
      w.map((x) => [x.start.toISOString(), x.end.toISOString()]),
      [
        ["2026-11-01T09:00:00.000Z", "2026-11-15T09:00:00.000Z"],
        ["2026-11-15T09:00:00.000Z", "2026-11-29T09:00:00.000Z"],
        ["2026-11-29T09:00:00.000Z", "2026-12-05T11:00:00.000Z"],
      ],
    );
  });

  it("names each kind that differs, and which side has more", () => {
    const period = { start: new Date(0), end: new Date(HOUR) };
    const r = reconcile(
      period,
      {
        runs: [
          {
            name: "a",
            usd: 0,
            byKind: {},
            tokens: { prefill: 10, sampled: 5, trained: 7 },
            source: "ledger",
          },
        ],
        totalUsd: 0,
      },
      [
        {
          data: [
            { bucket_start: "", bucket_end: "", event_info: { type: "training", token_count: 7 } },
            {
              bucket_start: "",
              bucket_end: "",
              event_info: { type: "sampling_prefill", cached: false, token_count: 12 },
            },
            { bucket_start: "", bucket_end: "", event_info: { type: "sampling_sample", token_count: 2 } },
            { bucket_start: "", bucket_end: "", event_info: { type: "checkpoint", count: 3 } },
          ],
          sessions: {},
        },
      ],
    );
    assert.deepEqual(r.differences, [
      "prefill tokens differ: ledger 10, service 12 (2 more in the service's billing)",
      "sampled tokens differ: ledger 5, service 2 (3 more in the ledger)",
    ]);
    assert.equal(r.serviceOnly.checkpoints, 3);
  });

  describe("against serve-local", () => {
    let ws: string;
    let server: { child: ChildProcess; done: Promise<CliResult> };
    let port: string;

    before(async () => {
      ws = mkdtempSync(join(tmpdir(), "spend-tinker-"));
      server = await startCli(["serve-local", "--port", "0", "--dir", join(ws, ".cache", "local-backend")]);
      let out = "";
      server.child.stdout!.on("data", (d) => (out += d));
      await waitFor(() => /listening on http:\/\/127\.0\.0\.1:\d+/.test(out), 60_000, "the listening line");
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1];
      port = /:(\d+)$/.exec(url)![1];
      // A run that meters through the service and records the same tokens in its ledger, as the steps do.
      const service = new TinkerService({ apiKey: "tml-local", baseUrl: url, log: () => {} });
      const tc = await service.createLoraTrainingClient({ baseModel: "Qwen/Qwen3.5-4B", rank: 4 });
      await tc.forwardBackward([sftDatum([1, 2, 3, 4, 5, 6], [0, 1, 1, 1, 1, 1])], "cross_entropy").result();
      const sampler = await tc.saveWeightsAndGetSamplingClient().result();
      const res = await sampler.sample({ prompt: [1, 2, 3], numSamples: 1, maxTokens: 5, seed: 2 }).result();
      service.close();
      mkdirSync(join(ws, "runs", "job"), { recursive: true });
      writeFileSync(join(ws, "runs", "job", "manifest.json"), JSON.stringify({ backend: "local" }));
      const ledger = CostLedger.open(join(ws, "runs", "job"), { prices: null });
      ledger.record({ kind: "train", trained: 5 });
      ledger.record({ kind: "sample", prefill: 3, sampled: res.sequences[0].tokens.length });
      // Sampled from a scripted reader: its manifest names no service, so it is listed, not counted.
      mkdirSync(join(ws, "runs", "scripted"), { recursive: true });
      writeFileSync(join(ws, "runs", "scripted", "manifest.json"), JSON.stringify({ policy: { kind: "scripted" } }));
      CostLedger.open(join(ws, "runs", "scripted"), { prices: null }).record({
        kind: "sample",
        prefill: 50,
        sampled: 9,
      });
    });

    after(async () => {
      server?.child.kill("SIGTERM");
      await server?.done;
      rmSync(ws, { recursive: true, force: true });
    });

    const spend = (...args: string[]) =>
      runCli(["spend", "--tinker", ...args, "--workspace", ws, "--local-port", port]);

    it("matches the local backend's metered usage offline", async () => {
      const r = await spend();
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^ledger vs the local backend's billing usage, \S+ to \S+:$/m);
      assert.match(r.stdout, /^ {2}training tokens {12}5 {11}5$/m);
      assert.match(r.stdout, /^ {2}prefill tokens {13}3 {11}3$/m);
      assert.match(r.stdout, /^ {2}all token counts match$/m);
      assert.match(r.stdout, /^ {2}not counted \(their manifests name another source\): scripted$/m);
    });

    it("names a difference when the ledger holds tokens the service did not bill", async () => {
      CostLedger.open(join(ws, "runs", "job"), { prices: null }).record({ kind: "train", trained: 10 });
      const r = await spend("--json");
      assert.equal(r.code, 0, r.stderr);
      const parsed = JSON.parse(r.stdout) as { differences: string[]; ledger: { training: number } };
      assert.equal(parsed.ledger.training, 15);
      assert.deepEqual(parsed.differences, ["training tokens differ: ledger 15, service 5 (10 more in the ledger)"]);
    });
  });
});
