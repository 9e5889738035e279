/**
 * A checkpoint's lifecycle on the service from the Checkpoints view (the official tinker CLI's
 * verbs, run through `agent-lab ckpt`): each is a short CLI call, its one line shown, and the rows
 * re-read afterwards.
 *
 *   agentLab.checkpointInfo         size, created, expiry, public (state and sampler)
 *   agentLab.setCheckpointTtl       days from now, or none
 *   agentLab.publishCheckpoint / agentLab.unpublishCheckpoint
 *   agentLab.downloadCheckpoint     pick a folder; the archive is extracted into it (progress shown)
 *   agentLab.deleteCheckpoint       confirm naming what is lost; a checkpoint a run still needs asks again
 *
 * Each also acts on a row of "On the service, not in this folder" (its one tinker:// path; no run here
 * needs it, so delete only confirms what is lost).
 */
import * as vscode from "vscode";
import { checkpointDependents, describeDependents } from "../../core/base/checkpoints/dependents";
import { readRegistry, registryPath } from "../../core/base/checkpoints/registry";
import { formatBytes } from "../../core/base/checkpoints/remote-state";
import type { Checkpoint } from "../../core/base/tinker/wire/types";
import type { CheckpointNode } from "../checkpoints/checkpoints-provider";
import { cliMessage, runCkptCli } from "../checkpoints/checkpoint-cli";
import type { CheckpointLifecycleSource } from "../checkpoints/checkpoint-lifecycle-source";
import { checkpointFrom, type CommandTable, type Lab } from "./lab";

/** The service's checkpoint a row of "On the service, not in this folder" stands for. */
function outsideFrom(arg: unknown): Checkpoint | undefined {
  const node = arg as CheckpointNode | undefined;
  return node?.type === "outside" ? node.checkpoint : undefined;
}

/** The NAME|PATH a command was given: a Checkpoints node, a name (the expiry warning's "Set TTL…"), or an outside row's path. */
function nameFrom(arg: unknown): string | undefined {
  if (typeof arg === "string") return arg;
  return checkpointFrom(arg)?.row.entry.name ?? outsideFrom(arg)?.tinker_path;
}

async function run(lab: Lab, source: CheckpointLifecycleSource, args: string[]): Promise<string | undefined> {
  const out = await runCkptCli(lab, args);
  await source.refresh();
  if (out.code !== 0) {
    void vscode.window.showErrorMessage(`Agent Lab: ${cliMessage(out)}`);
    return undefined;
  }
  return out.stdout.trim();
}

/** Accepts a number of days above 0, or "none". */
export function ttlInputProblem(text: string): string | undefined {
  if (text.trim() === "none") return undefined;
  const days = Number(text);
  return text.trim() !== "" && Number.isFinite(days) && days > 0
    ? undefined
    : 'a number of days above 0, or "none" for no expiry';
}

export function checkpointLifecycleCommands(lab: Lab, source: CheckpointLifecycleSource): CommandTable {
  const withName = (fn: (name: string) => Promise<void>) => async (arg: unknown) => {
    const name = nameFrom(arg);
    if (name) await fn(name);
  };
  return {
    "agentLab.checkpointInfo": withName(async (name) => {
      const text = await run(lab, source, ["info", name]);
      if (text) void vscode.window.showInformationMessage(`Agent Lab: ${name}\n${text}`, { modal: false });
    }),
    "agentLab.setCheckpointTtl": withName(async (name) => {
      const days = await vscode.window.showInputBox({
        title: `Agent Lab: Set TTL of ${name}`,
        prompt: 'Days from now until the service deletes it, or "none" to keep it',
        value: "30",
        validateInput: ttlInputProblem,
      });
      if (days === undefined) return;
      const text = await run(lab, source, ["ttl", name, days.trim()]);
      if (text) void vscode.window.showInformationMessage(`Agent Lab: ${text.split("\n").join("; ")}`);
    }),
    "agentLab.publishCheckpoint": withName(async (name) => {
      const text = await run(lab, source, ["publish", name]);
      if (text) void vscode.window.showInformationMessage(`Agent Lab: ${name} is public`);
    }),
    "agentLab.unpublishCheckpoint": withName(async (name) => {
      const text = await run(lab, source, ["unpublish", name]);
      if (text) void vscode.window.showInformationMessage(`Agent Lab: ${name} is private`);
    }),
    "agentLab.downloadCheckpoint": withName(async (name) => {
      const picked = await vscode.window.showOpenDialog({
        title: `Agent Lab: Download ${name}${name.startsWith("tinker://") ? "" : " (sampler weights)"} into…`,
        canSelectFolders: true,
        canSelectFiles: false,
        canSelectMany: false,
        openLabel: "Download Here",
        defaultUri: vscode.Uri.file(lab.workspace.requireFolder()),
      });
      const folder = picked?.[0]?.fsPath;
      if (!folder) return;
      const text = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Agent Lab: downloading ${name}…` },
        () =>
          run(lab, source, [
            "download",
            name,
            ...(name.startsWith("tinker://") ? [] : ["sampler"]),
            "--out",
            folder,
            "--force",
          ]),
      );
      if (text) void vscode.window.showInformationMessage(`Agent Lab: ${text}`);
    }),
    "agentLab.deleteCheckpoint": async (arg: unknown) => {
      const outside = outsideFrom(arg);
      if (outside) return deleteOutside(lab, source, outside);
      const name = nameFrom(arg);
      if (name) await deleteRegistered(lab, source, name);
    },
  };
}

/** A checkpoint no registered name points at: nothing here needs it, so only confirm what is lost. */
async function deleteOutside(lab: Lab, source: CheckpointLifecycleSource, c: Checkpoint): Promise<void> {
  const where = source.outside()?.backend === "local" ? "the local backend" : "Tinker";
  const confirm = await vscode.window.showWarningMessage(
    `Delete ${c.tinker_path}? This removes it (${formatBytes(c.size_bytes)}) from ${where} for good.`,
    { modal: true },
    "Delete",
  );
  if (confirm !== "Delete") return;
  const text = await run(lab, source, ["delete", c.tinker_path, "--yes"]);
  if (text) void vscode.window.showInformationMessage(`Agent Lab: ${text.split("\n").join("; ")}`);
}

async function deleteRegistered(lab: Lab, source: CheckpointLifecycleSource, name: string): Promise<void> {
  const runsDir = lab.workspace.runsDir();
  const entries = readRegistry(registryPath(runsDir));
  const entry = [...entries].reverse().find((e) => e.name === name);
  if (!entry) return;
  const args = ["delete", name, "--yes"];
  const dependents = checkpointDependents(runsDir, entries, {
    name,
    paths: [entry.state_path, entry.sampler_path],
    run: entry.run,
  });
  if (dependents.length) {
    const force = await vscode.window.showWarningMessage(
      `${name} is still needed: ${describeDependents(dependents)}. Delete it anyway?`,
      { modal: true },
      "Delete Anyway",
    );
    if (force !== "Delete Anyway") return;
    args.push("--force");
  }
  const status = source.status(name);
  const live = [status?.state, status?.sampler].filter((c) => c);
  const size = live.reduce((s, c) => s + (c?.size_bytes ?? 0), 0);
  const what = live.length ? live.map((c) => c!.tinker_path).join(", ") : `${entry.state_path}, ${entry.sampler_path}`;
  const confirm = await vscode.window.showWarningMessage(
    `Delete ${name}? This removes ${what}${live.length ? ` (${formatBytes(size)})` : ""} from the service for good.`,
    { modal: true },
    "Delete",
  );
  if (confirm !== "Delete") return;
  const text = await run(lab, source, args);
  if (text) void vscode.window.showInformationMessage(`Agent Lab: ${text.split("\n").join("; ")}`);
}
