/**
 * activate() in plain Node with the recorded vscode stand-in: it registers every contributed command
 * and the three views, watches the run files, re-attaches jobs, and measures its own time (target 50 ms).
 */
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { installFakeVscode, recorded } from "./fake-vscode";
import { speedGuardMs } from "../../helpers/load-scaled";

installFakeVscode();

const REPO = resolve(__dirname, "..", "..", "..");

describe("extension: activate() (stand-in vscode)", () => {
  let ws: string;
  let api: import("../../../src/extension/extension").AgentLabApi | undefined;
  before(() => {
    ws = mkdtempSync(join(tmpdir(), "agent-lab-activate-"));
    mkdirSync(join(ws, "runs", "base"), { recursive: true });
    writeFileSync(
      join(ws, "runs", "base", "summary.json"),
      JSON.stringify({
        n: 2,
        planned: 2,
        em: 0.5,
        f1: 0.75,
        searches_per_q: 1,
        answered: 1,
        ends: { answer: 2 },
        usd_per_q: 0,
        usd_total: 0,
        seconds: 1,
        status: "done",
        split: "val",
        model: "m",
        updated: new Date().toISOString(),
      }),
    );
    recorded.workspaceFolder = ws;
    recorded.settings = { runsDir: "runs" };
  });
  after(() => {
    for (const d of (api?.context.subscriptions ?? []) as { dispose(): void }[]) d.dispose();
    recorded.workspaceFolder = undefined;
    recorded.settings = {};
    rmSync(ws, { recursive: true, force: true });
  });

  it("registers every contributed command and the four views, quickly; watches the run files right after", async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const ext = require("../../../src/extension/extension") as typeof import("../../../src/extension/extension");
    const context = {
      subscriptions: [] as unknown[],
      secrets: { get: async () => undefined, onDidChange: () => ({ dispose() {} }) },
      asAbsolutePath: (p: string) => join(REPO, p),
      extensionUri: { fsPath: REPO },
    };
    api = ext.activate(context as never);
    const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8"));
    const contributed = new Set((pkg.contributes.commands as { command: string }[]).map((c) => c.command));
    for (const id of contributed)
      assert.ok(recorded.registeredCommands.has(id), `${id} is contributed but nothing registers it`);
    // The panels register internal extras: the episodes.jsonl code lens' target, the tests' probe and the bench's reference webview.
    const extras = new Set([
      "agentLab.openTraceAt",
      "agentLab._probePanel",
      "agentLab._referencePanel",
      "agentLab._probeView",
    ]);
    for (const id of recorded.registeredCommands.keys())
      assert.ok(contributed.has(id) || extras.has(id), `${id} is registered but not contributed`);
    assert.ok(contributed.size >= 30, `${contributed.size} commands`);
    assert.deepEqual([...recorded.treeProviders.keys()].sort(), [
      "agentLab.checkpoints",
      "agentLab.experiments",
      "agentLab.jobs",
      "agentLab.runs",
    ]);
    // Compare With… and Compare Selected take the Runs view's selection of several runs, and the Checkpoints view's.
    assert.deepEqual([...recorded.multiSelectViews], ["agentLab.runs", "agentLab.checkpoints"]);
    assert.deepEqual([...recorded.webviewViews.keys()], ["agentLab.checkpointsCompare"]);
    await new Promise((r) => setTimeout(r, 10)); // the watchers start at the first idle moment
    assert.ok(
      recorded.watchers.some((w) => w.startsWith("runs/*/{summary.json,episodes.jsonl")),
      recorded.watchers.join(" "),
    );
    assert.ok(api.activationMs < speedGuardMs(50), `activate() took ${api.activationMs.toFixed(1)} ms (target 50 ms)`);
    console.log(`      activate() took ${api.activationMs.toFixed(1)} ms (stand-in vscode)`);
  });

  it("the Runs provider lists the workspace's runs", () => {
    const rows = api!.runs.getChildren();
    assert.equal(rows.length, 1);
    const item = api!.runs.getTreeItem(rows[0]);
    assert.equal(item.label, "base");
    assert.equal(item.description, "hotpotqa · val · n=2 · F1 0.750 · EM 0.500 · $0/q");
    assert.equal(item.contextValue, "run.eval");
  });
});
