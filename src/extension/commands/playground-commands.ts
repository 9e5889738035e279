/**
 * Chat with a model: a Chat with Model panel (extension/playground/) on a checkpoint or the base
 * model, in the environment the checkpoint was trained in (the base model: one picked). The model
 * runs in an `agent-lab playground` process on the workspace's backend, started like a job: in a
 * trusted workspace, with the settings layer, and with the Tinker key only when it samples Tinker.
 *
 *   agentLab.chatWithCheckpoint   (checkpoint node) → the panel on its sampler path, its environment
 *   agentLab.chatWithModel        pick the base model or a checkpoint → the panel
 */
import * as vscode from "vscode";
import { checkpointEnvironment } from "../../core/envs/checkpoint-environment";
import type { CheckpointEntry } from "../checkpoints/checkpoints-model";
import { openPlayground, setPlaygroundStarter } from "../panels";
import type { PlaygroundState, StartPlayground } from "../playground/playground-panel";
import { PlaygroundProcess } from "../playground/playground-process";
import { checkpointFrom, type CommandTable, type Lab } from "./lab";
import * as pick from "./pickers";
import { ensureEnvironmentData } from "./prepare-flow";

const TITLE = "Agent Lab: Chat with Model";

/** The environment a checkpoint answers in: its training run's (a cookbook one's folder's), else picked. */
async function checkpointEnv(lab: Lab, entry: CheckpointEntry): Promise<string | undefined> {
  const named = entry.cookbook
    ? entry.cookbook.environment
    : checkpointEnvironment(lab.workspace.requireFolder(), lab.workspace.runsDir(), entry)?.name;
  return named ?? pick.pickEnvironment(`${TITLE} — ${entry.name}: which environment?`, lab.workspace.config().env);
}

async function open(lab: Lab, state: PlaygroundState): Promise<void> {
  if (!(await ensureEnvironmentData(lab, state.env, "Chat with Model"))) return;
  openPlayground(lab.context, state);
}

async function chatWithCheckpoint(lab: Lab, arg: unknown): Promise<void> {
  const entry = checkpointFrom(arg)?.row.entry;
  if (!entry?.sampler_path) {
    void vscode.window.showWarningMessage("Agent Lab: this checkpoint has no sampler path to chat with.");
    return;
  }
  const env = await checkpointEnv(lab, entry);
  if (env) await open(lab, { kind: "playground", env, checkpoint: entry.sampler_path, label: entry.name });
}

async function chatWithModel(lab: Lab): Promise<void> {
  const rows = lab.checkpoints.rows().rows.filter((r) => r.entry.sampler_path);
  const base = { label: "Base model", description: `${lab.workspace.backend()} backend`, entry: undefined };
  const picked = await vscode.window.showQuickPick(
    [base, ...rows.map((r) => ({ label: r.entry.name, description: r.description, entry: r.entry }))],
    { title: `${TITLE} — which model?` },
  );
  if (!picked) return;
  if (picked.entry) {
    const env = await checkpointEnv(lab, picked.entry);
    if (env)
      await open(lab, { kind: "playground", env, checkpoint: picked.entry.sampler_path, label: picked.entry.name });
    return;
  }
  const env = await pick.pickEnvironment(`${TITLE} — which environment?`, lab.workspace.config().env);
  if (env) await open(lab, { kind: "playground", env, label: "base model" });
}

/** Starts a panel's process as a job would be started (trust, settings layer, the key only for Tinker). */
function starter(lab: Lab): StartPlayground {
  return async (state, handlers) => {
    if (vscode.workspace.isTrusted === false) {
      void vscode.window.showWarningMessage(
        "Agent Lab: chatting with a model runs a process: trust the workspace first.",
      );
      return undefined;
    }
    const folder = lab.workspace.requireFolder();
    const backend = lab.workspace.backend();
    const env: Record<string, string> = { ...lab.workspace.jobEnv() };
    if (backend === "tinker") {
      const key = await lab.keys.require();
      if (!key) return undefined;
      env.TINKER_API_KEY = key;
    }
    return new PlaygroundProcess({
      cliPath: lab.context.asAbsolutePath("dist/cli.js"),
      cwd: folder,
      args: [
        "--env",
        state.env,
        "--backend",
        backend,
        ...(state.checkpoint ? ["--model-path", state.checkpoint] : []),
        "--local-port",
        String(lab.workspace.localBackendPort()),
        "--workspace",
        folder,
      ],
      env,
      ...handlers,
    });
  };
}

export function playgroundCommands(lab: Lab): CommandTable {
  setPlaygroundStarter(lab.context, starter(lab), () => lab.runs.refresh());
  return {
    "agentLab.chatWithCheckpoint": (a) => chatWithCheckpoint(lab, a),
    "agentLab.chatWithModel": () => chatWithModel(lab),
  };
}
