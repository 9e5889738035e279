/**
 * Show Spend shows both sides (issue 25 item 6, "the ledger shows both"): the runs' ledger spend,
 * then — once the real `agent-lab spend --tinker` answers — the ledger's tokens beside the billing
 * usage a real local backend metered for the same run; an untrusted folder shows the ledger only.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLocalBackend, type RunningLocalBackend } from "../../../src/server";
import { TinkerService } from "../../../src/core/base/tinker";
import { sftDatum } from "../../../src/core/base/tinker/wire/builders";
import { CostLedger } from "../../../src/core/base/ledger";
import { localBackendDir } from "../../../src/core/steps/eval/backends";
import { testCli, waitFor } from "../cli/cli-process";
import { fakeVscode, installFakeVscode, recorded } from "./fake-vscode";

installFakeVscode();
/* eslint-disable @typescript-eslint/no-require-imports */
const { LabWorkspace } =
  require("../../../src/extension/workspace/lab-workspace") as typeof import("../../../src/extension/workspace/lab-workspace");
const { viewCommands } =
  require("../../../src/extension/commands/view-commands") as typeof import("../../../src/extension/commands/view-commands");
/* eslint-enable @typescript-eslint/no-require-imports */

describe("extension: Show Spend lists the ledger and the service's billing usage", function () {
  this.timeout(180_000);
  let ws: string;
  let server: RunningLocalBackend;
  let cli: string;

  before(async () => {
    cli = await testCli();
    ws = mkdtempSync(join(tmpdir(), "agent-lab-show-spend-"));
    server = await startLocalBackend({ dir: localBackendDir(ws), seed: 0 });
    // A run that trains and samples through the service and records the same tokens in its ledger, as the steps do.
    const service = new TinkerService({ apiKey: "tml-local", baseUrl: server.url, log: () => {} });
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
  });

  after(async () => {
    await server?.close();
    recorded.workspaceFolder = undefined;
    recorded.untrusted = undefined;
    rmSync(ws, { recursive: true, force: true });
  });

  async function showSpend(): Promise<{ text: () => string }> {
    recorded.workspaceFolder = ws;
    recorded.settings = { localBackendPort: server.port };
    const lab = {
      context: { asAbsolutePath: (p: string) => (p === join("dist", "cli.js") ? cli : p) },
      workspace: new LabWorkspace(),
      keys: { get: async () => undefined },
    };
    const name = `Agent Lab Spend ${Math.random()}`;
    const channel = fakeVscode.window.createOutputChannel(name);
    await viewCommands(lab as never, channel as never)["agentLab.showSpend"]();
    return { text: () => recorded.channels.get(name)!.text };
  }

  it("appends spend --tinker's comparison under the ledger's table", async () => {
    const shown = await showSpend();
    assert.match(shown.text(), /^Agent Lab spend \(from run ledgers/);
    assert.match(shown.text(), /^ {2}job {2,}/m);
    await waitFor(
      () => /all token counts match|billing usage is not available/.test(shown.text()),
      120_000,
      "the comparison",
    );
    const text = shown.text();
    assert.ok(text.indexOf("  all runs") < text.indexOf("ledger vs"), text);
    assert.match(text, /^ledger vs the local backend's billing usage, \S+ to \S+:$/m);
    assert.match(text, /^ {2}training tokens {12}5 {11}5$/m);
    assert.match(text, /^ {2}prefill tokens {13}3 {11}3$/m);
    assert.match(text, /^ {2}all token counts match$/m);
  });

  it("shows the ledger only in an untrusted folder (no process of ours runs)", async () => {
    recorded.untrusted = true;
    try {
      const shown = await showSpend();
      await new Promise((r) => setTimeout(r, 3_000));
      assert.match(shown.text(), /^ {2}all runs /m);
      assert.doesNotMatch(shown.text(), /ledger vs|billing usage/);
    } finally {
      recorded.untrusted = undefined;
    }
  });
});
