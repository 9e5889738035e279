/**
 * The Checkpoints tree's "On the service, not in this folder" group: a real local backend holds a
 * registered checkpoint and one the folder's registry does not name; the group (read through the
 * rows' own lifecycle source, i.e. the real `agent-lab ckpt --remote --json`) lists only the
 * latter, and Info, Set TTL…, Publish, Download… and Delete… act on its path.
 */
import { strict as assert } from "node:assert";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLocalBackend, type RunningLocalBackend } from "../../../src/server";
import { TinkerService } from "../../../src/core/base/tinker";
import { sftDatum } from "../../../src/core/base/tinker/wire/builders";
import { localBackendDir } from "../../../src/core/steps/eval/backends";
import { testCli } from "../cli/cli-process";
import { installFakeVscode, recorded } from "./fake-vscode";

installFakeVscode();
/* eslint-disable @typescript-eslint/no-require-imports */
const { LabWorkspace } =
  require("../../../src/extension/workspace/lab-workspace") as typeof import("../../../src/extension/workspace/lab-workspace");
const { CheckpointsProvider } =
  require("../../../src/extension/checkpoints/checkpoints-provider") as typeof import("../../../src/extension/checkpoints/checkpoints-provider");
const { CheckpointLifecycleSource } =
  require("../../../src/extension/checkpoints/checkpoint-lifecycle-source") as typeof import("../../../src/extension/checkpoints/checkpoint-lifecycle-source");
const { checkpointLifecycleCommands } =
  require("../../../src/extension/commands/checkpoint-lifecycle-commands") as typeof import("../../../src/extension/commands/checkpoint-lifecycle-commands");
/* eslint-enable @typescript-eslint/no-require-imports */
type CheckpointNode = import("../../../src/extension/checkpoints/checkpoints-provider").CheckpointNode;

describe("extension: the Checkpoints tree's service checkpoints not in this folder", function () {
  this.timeout(180_000);
  let ws: string;
  let server: RunningLocalBackend;
  let service: TinkerService;
  let cli: string;
  const registered = { state: "", sampler: "" };
  const stray = { state: "", sampler: "" };

  before(async () => {
    cli = await testCli();
    ws = mkdtempSync(join(tmpdir(), "agent-lab-ckpt-outside-"));
    mkdirSync(join(ws, "runs"), { recursive: true });
    server = await startLocalBackend({ dir: localBackendDir(ws), seed: 0 });
    service = new TinkerService({ apiKey: "tml-local", baseUrl: server.url, log: () => {} });
    const save = async (name: string, into: { state: string; sampler: string }) => {
      const tc = await service.createLoraTrainingClient({ baseModel: "Qwen/Qwen3.5-4B", rank: 4 });
      await tc.forwardBackward([sftDatum([1, 2, 3, 4], [0, 1, 1, 1])], "cross_entropy").result();
      into.state = (await tc.saveState(name).result()).path;
      into.sampler = (await tc.saveWeightsForSampler(name).result()).path;
    };
    await save("e1", registered);
    await save("stray", stray);
    appendFileSync(
      join(ws, "runs", "checkpoints.jsonl"),
      JSON.stringify({
        name: "sft-e1",
        state_path: registered.state,
        sampler_path: registered.sampler,
        base_model: "Qwen/Qwen3.5-4B",
        data_hash: "x",
        step: 1,
        kind: "sft",
        parent: null,
        run: "runs/sft",
        created: "",
      }) + "\n",
    );
  });

  after(async () => {
    service?.close();
    await server?.close();
    recorded.workspaceFolder = undefined;
    recorded.answer = recorded.input = recorded.open = undefined;
    rmSync(ws, { recursive: true, force: true });
  });

  const listed = async () =>
    new Map((await service.listUserCheckpoints()).checkpoints.map((c) => [c.tinker_path, c] as const));

  function setUp() {
    recorded.workspaceFolder = ws;
    recorded.settings = { localBackendPort: server.port };
    recorded.messages.length = 0;
    const workspace = new LabWorkspace();
    const lab = {
      context: { asAbsolutePath: (p: string) => (p === join("dist", "cli.js") ? cli : p) },
      workspace,
      keys: { get: async () => undefined },
    };
    const source = new CheckpointLifecycleSource(lab as never);
    const tree = new CheckpointsProvider(workspace);
    tree.setLifecycle(source);
    const commands = checkpointLifecycleCommands(lab as never, source);
    const group = () => tree.getChildren().find((n) => n.type === "outsideGroup");
    const rows = () => {
      const g = group();
      return g ? tree.getChildren(g) : [];
    };
    const row = (path: string) => rows().find((n) => n.type === "outside" && n.checkpoint.tinker_path === path)!;
    return { source, tree, commands, group, rows, row };
  }

  it("lists the service's checkpoints the registry does not name, collapsed, with their lifecycle actions", async () => {
    const { source, tree, group, rows, row } = setUp();
    assert.equal(group(), undefined, "nothing is shown before the service answers");
    await source.refresh();
    const g = group()!;
    const item = tree.getTreeItem(g);
    assert.equal(item.label, "On the local backend, not in this folder (2)");
    assert.equal(item.collapsibleState, 1);
    assert.equal(item.contextValue, "outsideCheckpoints");
    assert.deepEqual(
      rows()
        .map((n) => (n as Extract<CheckpointNode, { type: "outside" }>).checkpoint.tinker_path)
        .sort(),
      [stray.sampler, stray.state].sort(),
    );
    const state = tree.getTreeItem(row(stray.state));
    assert.equal(state.label, stray.state.replace("tinker://", ""));
    assert.match(String(state.description), /^training · \d+\.\d MB · no expiry · private$/);
    assert.equal(state.contextValue, "outsideCheckpoint");
    assert.equal(state.tooltip, stray.state);

    // The six lifecycle verbs are on such a row's menu, and nothing else of a registered row's.
    const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "package.json"), "utf8")) as {
      contributes: { menus: { "view/item/context": { command: string; when: string }[] } };
    };
    const onOutside = manifest.contributes.menus["view/item/context"]
      .filter((m) => m.when.includes("outsideCheckpoint"))
      .map((m) => m.command)
      .sort();
    assert.deepEqual(onOutside, [
      "agentLab.checkpointInfo",
      "agentLab.deleteCheckpoint",
      "agentLab.downloadCheckpoint",
      "agentLab.publishCheckpoint",
      "agentLab.setCheckpointTtl",
      "agentLab.unpublishCheckpoint",
    ]);
  });

  it("a refresh asked for while one runs reads once more after it: a change made meanwhile is never missed", async () => {
    const { source } = setUp();
    let reads = 0;
    const counting = source.onDidChange(() => reads++);
    try {
      const first = source.refresh();
      // A TTL set while the first read runs, as Set TTL… does before it asks the rows to refresh.
      await service.setCheckpointTtl(registered.sampler, 86_400);
      const second = source.refresh();
      const third = source.refresh();
      assert.notEqual(second, first, "the later call does not get the read that may have missed the change");
      assert.equal(third, second, "calls while the first runs share the one read after it");
      await second;
      assert.equal(reads, 2);
      assert.ok(source.status("sft-e1")?.sampler?.expires_at, "the row's state has the TTL set during the first read");
    } finally {
      counting.dispose();
      await service.setCheckpointTtl(registered.sampler, null);
    }
  });

  it("Info, Set TTL…, Publish and Download… act on the row's path and the row shows the change", async () => {
    const { source, tree, commands, row } = setUp();
    await source.refresh();

    await commands["agentLab.checkpointInfo"](row(stray.state));
    const info = recorded.messages.at(-1)!;
    assert.equal(info.level, "info");
    assert.match(info.text, new RegExp(`^Agent Lab: ${escape(stray.state)}\\n${escape(stray.state)}  training  `));

    // Set TTL… keeps its box open on a TTL ≤ 0 (the user then gives up): nothing runs, nothing changes.
    for (const bad of ["0", "-2", "soon"]) {
      recorded.inputsShown.length = 0;
      recorded.input = () => bad;
      await commands["agentLab.setCheckpointTtl"](row(stray.state));
      assert.equal(recorded.inputsShown[0]?.error, 'a number of days above 0, or "none" for no expiry', bad);
    }
    assert.equal((await listed()).get(stray.state)!.expires_at, undefined);

    recorded.input = () => "3";
    await commands["agentLab.setCheckpointTtl"](row(stray.state));
    const expires = (await listed()).get(stray.state)!.expires_at!;
    assert.ok(Math.abs(Date.parse(expires) - Date.now() - 3 * 86_400_000) < 120_000, expires);
    assert.equal((await listed()).get(stray.sampler)!.expires_at, undefined, "only the row's own path");

    await commands["agentLab.publishCheckpoint"](row(stray.state));
    assert.equal((await listed()).get(stray.state)!.public, true);
    assert.match(String(tree.getTreeItem(row(stray.state)).description), / · expires in 3\.0 days · public$/);
    await commands["agentLab.unpublishCheckpoint"](row(stray.state));
    assert.equal((await listed()).get(stray.state)!.public, false);

    const into = join(ws, "dl");
    mkdirSync(into);
    recorded.open = () => [into];
    await commands["agentLab.downloadCheckpoint"](row(stray.state));
    const folder = join(into, stray.state.replace("tinker://", "").split("/").join("_"));
    assert.ok(existsSync(join(folder, "weights.bin")), recorded.messages.map((m) => m.text).join("\n"));
    assert.equal(recorded.messages.at(-1)!.level, "info");
    assert.match(recorded.messages.at(-1)!.text, new RegExp(`^Agent Lab: downloaded ${escape(stray.state)} `));
  });

  it("Delete… confirms naming the path and size, keeps it when dismissed, removes it when confirmed", async () => {
    const { source, commands, row, group, tree } = setUp();
    await source.refresh();
    const size = (await listed()).get(stray.sampler)!.size_bytes!;
    recorded.answer = () => undefined;
    await commands["agentLab.deleteCheckpoint"](row(stray.sampler));
    const confirm = recorded.messages.at(-1)!;
    assert.equal(confirm.level, "warning");
    assert.equal(
      confirm.text,
      `Delete ${stray.sampler}? This removes it (${(size / 1024 / 1024).toFixed(1)} MB) from the local backend for good.`,
    );
    assert.deepEqual(confirm.actions, ["Delete"]);
    assert.ok((await listed()).has(stray.sampler), "dismissed: nothing deleted");

    recorded.answer = () => "Delete";
    await commands["agentLab.deleteCheckpoint"](row(stray.sampler));
    const after = await listed();
    assert.equal(after.has(stray.sampler), false);
    for (const p of [stray.state, registered.state, registered.sampler]) assert.ok(after.has(p), p);
    assert.equal(recorded.messages.at(-1)!.text, `Agent Lab: deleted ${stray.sampler}`);
    assert.equal(tree.getTreeItem(group()!).label, "On the local backend, not in this folder (1)");
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
