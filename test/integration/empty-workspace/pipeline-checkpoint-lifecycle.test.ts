/**
 * After the offline pipeline in an empty folder (offline-pipeline.test.ts runs it first): a
 * checkpoint's lifecycle on the local backend from the Checkpoints view — Set TTL…, Publish,
 * Download…, Delete… — each shown in the rows (expiry, public, gone), the expiry warning, and a
 * delete refused while a run needs the checkpoint. Deletes only the last GRPO checkpoint, which
 * nothing was trained from (each earlier one is the next one's parent).
 */
import * as assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as vscode from "vscode";
import type { AgentLabApi } from "../../../src/extension/extension";
import { activeExports, answerUi, labelOf, treeRows, waitFor } from "../helpers";

describe("after the offline pipeline: checkpoint lifecycle on the local backend (real VS Code)", function () {
  this.timeout(300_000);

  it("checkpoint lifecycle: TTL, publish, download and delete run against the local backend and show in the Checkpoints rows", async () => {
    const lab = await activeExports<AgentLabApi>();
    const rows = () => treeRows(lab.checkpoints);
    const row = async (name: string) => (await rows()).find((r) => labelOf(r.item) === name);
    const description = async (name: string) => String((await row(name))?.item.description ?? "");
    const names = (await rows()).map((r) => labelOf(r.item));
    const grpo = names.filter((n) => /^grpo-s\d+$/.test(n)).sort((a, b) => Number(b.slice(6)) - Number(a.slice(6)))[0];
    const sft = names.find((n) => /^sft-e\d+$/.test(n));
    assert.ok(grpo && sft, `GRPO and SFT checkpoints in the view (saw ${names.join(", ")})`);
    await waitFor(
      `${grpo}'s row to show its service state`,
      async () => /no expiry · private/.test(await description(grpo)),
      60_000,
    );

    const out = mkdtempSync(join(tmpdir(), "ckpt-download-"));
    const w = vscode.window as { showOpenDialog: typeof vscode.window.showOpenDialog };
    const savedOpen = w.showOpenDialog;
    w.showOpenDialog = async () => [vscode.Uri.file(out)];
    const ui = answerUi({
      inputBox: () => "1.5",
      // The expiry warning's "Set TTL…" is left alone; a needed checkpoint is not deleted; the plain confirmation is.
      warning: (message, buttons) => (buttons.includes("Delete") ? "Delete" : undefined),
    });
    try {
      const node = async (name: string) => (await row(name))!.node;
      await vscode.commands.executeCommand("agentLab.setCheckpointTtl", await node(grpo));
      await waitFor(
        "the row to show the TTL",
        async () => /expires in 1\.5 days · private/.test(await description(grpo)),
        60_000,
      );
      await waitFor("the expiry warning", () =>
        ui
          .messages("warning")
          .find((m) => m.startsWith(`Agent Lab: checkpoint ${grpo} `) && m.includes("within 2 days")),
      );

      await vscode.commands.executeCommand("agentLab.publishCheckpoint", await node(grpo));
      await waitFor("the row to show it public", async () => /· public/.test(await description(grpo)), 60_000);

      await vscode.commands.executeCommand("agentLab.downloadCheckpoint", await node(grpo));
      const folder = readdirSync(out).find((f) => f.includes("_sampler_weights_"));
      assert.ok(folder, `a downloaded folder in ${out}: ${readdirSync(out).join(", ")}`);
      for (const f of ["weights.bin", "model.json", "checkpoint.json"]) assert.ok(existsSync(join(out, folder, f)), f);

      // The SFT checkpoint GRPO started from is still needed: asked, declined, nothing deleted.
      await vscode.commands.executeCommand("agentLab.deleteCheckpoint", await node(sft!));
      assert.ok(
        ui.messages("warning").some((m) => m.startsWith(`${sft} is still needed: `)),
        ui.messages("warning").join("\n"),
      );
      assert.doesNotMatch(await description(sft!), /not on/);

      await vscode.commands.executeCommand("agentLab.deleteCheckpoint", await node(grpo));
      assert.ok(ui.messages("warning").some((m) => m.startsWith(`Delete ${grpo}? This removes tinker://`)));
      await waitFor(
        "the row to show it gone",
        async () => /not on the local backend/.test(await description(grpo)),
        60_000,
      );
      assert.deepEqual(ui.messages("error"), []);
    } finally {
      ui.restore();
      w.showOpenDialog = savedOpen;
      rmSync(out, { recursive: true, force: true });
    }
  });
});
