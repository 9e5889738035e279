/**
 * Helpers for tests that run inside the real extension host. The fixture workspace (made by
 * scripts/vscode/fixture.mjs before VS Code starts) is the open folder; its path also arrives in
 * env AGENT_LAB_IT_WORKSPACE.
 */
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { AgentLabApi } from "../../src/extension/extension";
import type { Job } from "../../src/extension/jobs/job-runner";
import type { JobStatus } from "../../src/extension/jobs/job-state";
import { PROBE_PANEL_COMMAND, type ProbeResult } from "../../src/extension/webview/protocol";

export const EXTENSION_ID = "agent-lab.agent-lab";

/** The open workspace folder (the fixture). */
export function workspaceDir(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error("the integration suite needs a workspace folder (the fixture)");
  return folder.uri.fsPath;
}

export function agentLabExtension(): vscode.Extension<unknown> {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  if (!ext) throw new Error(`extension ${EXTENSION_ID} is not loaded (extensionDevelopmentPath wrong?)`);
  return ext;
}

/** Activates the extension (a no-op when the workspace already did) and returns its exports. */
export async function activeExports<T = Record<string, unknown>>(): Promise<T> {
  const ext = agentLabExtension();
  const api = await ext.activate();
  return (api ?? {}) as T;
}

/** Polls `probe` until it returns a truthy value or `timeoutMs` passes; returns the value. */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 20_000,
  everyMs = 100,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** How `job` ended, or a failure naming `what` when it runs longer than `ms`. */
export function settle(job: Job, ms: number, what: string): Promise<JobStatus> {
  return Promise.race([
    job.finished,
    new Promise<never>((_, no) => setTimeout(() => no(new Error(`${what} did not finish in ${ms / 1000} s`)), ms)),
  ]);
}

/**
 * Agent Lab: Run Offline Pipeline at smoke size for `env`, with the pickers answered by the caller's
 * answerUi: the job it starts runs exactly `pipeline --dir . --env ENV --backend local --size smoke`
 * and ends done. Returns the job.
 */
export async function runSmokePipeline(lab: AgentLabApi, env: string, errors: () => string[]): Promise<Job> {
  await vscode.commands.executeCommand("agentLab.runOfflinePipeline");
  assert.deepEqual(errors(), []);
  const job = await waitFor(
    "the pipeline job",
    () => lab.jobs.list().find((j) => j.record.command[0] === "pipeline"),
    10_000,
  );
  assert.deepEqual(job.record.command, [
    "pipeline",
    "--dir",
    ".",
    "--env",
    env,
    "--backend",
    "local",
    "--size",
    "smoke",
  ]);
  const status = await settle(job, 240_000, `the ${env} smoke pipeline`);
  assert.equal(status.state, "done", `pipeline ${status.state}: ${status.reason ?? ""} ${job.lastLine ?? ""}`);
  return job;
}

/** Agent Lab: Compare Runs… from the palette, picking `baseline` and then `other` in its two pickers. */
export async function compareFromPalette(baseline: string, other: string): Promise<void> {
  const ui = answerUi({
    quickPick: (items, options) =>
      options?.canPickMany ? [items.find((i) => i.label === other)!] : items.find((i) => i.label === baseline),
  });
  try {
    await vscode.commands.executeCommand("agentLab.compareRuns");
  } finally {
    ui.restore();
  }
}

/** The commands contributed in the extension's own package.json. */
export function contributedCommands(): string[] {
  const pkg = agentLabExtension().packageJSON as { contributes?: { commands?: { command: string }[] } };
  return (pkg.contributes?.commands ?? []).map((c) => c.command);
}

/** One prompt the extension showed while a UI script was answering. */
export interface UiCall {
  kind: "quickPick" | "inputBox" | "warning" | "info" | "error";
  text: string;
  /** The buttons a message offered. */
  buttons?: string[];
}

/** How a test answers the extension's prompts; undefined = the user pressed Escape. */
export interface UiScript {
  quickPick?: (
    items: readonly vscode.QuickPickItem[],
    options: vscode.QuickPickOptions | undefined,
  ) => vscode.QuickPickItem | vscode.QuickPickItem[] | undefined;
  inputBox?: (options: vscode.InputBoxOptions) => string | undefined;
  /** Warning messages (e.g. the spend confirmation): the button to press. */
  warning?: (message: string, buttons: string[]) => string | undefined;
  /** Information messages (e.g. a job's "finished"): the button to press (or a promise of it: pressed later). */
  info?: (message: string, buttons: string[]) => string | undefined | Promise<string | undefined>;
}

type WindowApi = { -readonly [K in keyof typeof vscode.window]: (typeof vscode.window)[K] };

/**
 * Answers the extension's quick picks, input boxes and warnings from `script`, and records every
 * prompt and notification, until `restore()`. This works because the suite is loaded from the
 * extension's own folder, so VS Code hands it the same `vscode` API object as the extension: the
 * commands run exactly as when a person clicks through them, with a script instead of the person.
 */
export function answerUi(script: UiScript): {
  calls: UiCall[];
  messages(kind?: UiCall["kind"]): string[];
  /** The output channels the extension revealed (`show`), by name. */
  shownChannels: string[];
  restore(): void;
} {
  const w = vscode.window as WindowApi;
  const saved = {
    showQuickPick: w.showQuickPick,
    showInputBox: w.showInputBox,
    showWarningMessage: w.showWarningMessage,
    showInformationMessage: w.showInformationMessage,
    showErrorMessage: w.showErrorMessage,
    createOutputChannel: w.createOutputChannel,
  };
  const shownChannels: string[] = [];
  w.createOutputChannel = ((name: string, ...rest: unknown[]) => {
    const channel = (saved.createOutputChannel as (...a: unknown[]) => vscode.OutputChannel)(name, ...rest);
    const show = channel.show.bind(channel) as (...a: unknown[]) => void;
    channel.show = ((...a: unknown[]) => {
      shownChannels.push(name);
      show(...a);
    }) as typeof channel.show;
    return channel;
  }) as typeof w.createOutputChannel;
  const calls: UiCall[] = [];
  const buttonsOf = (rest: unknown[]) => rest.filter((r): r is string => typeof r === "string");
  w.showQuickPick = (async (
    items: readonly vscode.QuickPickItem[] | Thenable<readonly vscode.QuickPickItem[]>,
    options?: vscode.QuickPickOptions,
  ) => {
    const list = await items;
    calls.push({ kind: "quickPick", text: `${options?.title ?? ""} | ${list.map((i) => i.label).join(" / ")}` });
    return script.quickPick?.(list, options);
  }) as unknown as typeof w.showQuickPick;
  w.showInputBox = (async (options?: vscode.InputBoxOptions) => {
    calls.push({ kind: "inputBox", text: `${options?.title ?? ""} | ${options?.prompt ?? ""}` });
    const answer = script.inputBox?.(options ?? {});
    const problem = answer !== undefined ? await options?.validateInput?.(answer) : undefined;
    if (problem)
      throw new Error(
        `the input box rejected the scripted answer "${answer}": ${typeof problem === "string" ? problem : problem.message}`,
      );
    return answer;
  }) as typeof w.showInputBox;
  w.showWarningMessage = (async (message: string, ...rest: unknown[]) => {
    calls.push({ kind: "warning", text: message, buttons: buttonsOf(rest) });
    return script.warning?.(message, buttonsOf(rest));
  }) as typeof w.showWarningMessage;
  w.showInformationMessage = (async (message: string, ...rest: unknown[]) => {
    calls.push({ kind: "info", text: message, buttons: buttonsOf(rest) });
    return script.info?.(message, buttonsOf(rest));
  }) as typeof w.showInformationMessage;
  w.showErrorMessage = (async (message: string) => {
    calls.push({ kind: "error", text: message });
    return undefined;
  }) as typeof w.showErrorMessage;
  return {
    calls,
    messages: (kind) => calls.filter((c) => !kind || c.kind === kind).map((c) => c.text),
    shownChannels,
    restore: () => Object.assign(w, saved),
  };
}

/** Top-level nodes of a tree data provider with their rendered items. */
export async function treeRows<T>(
  provider: vscode.TreeDataProvider<T>,
  parent?: T,
): Promise<{ node: T; item: vscode.TreeItem }[]> {
  const nodes = (await provider.getChildren(parent)) ?? [];
  return Promise.all(nodes.map(async (node) => ({ node, item: await provider.getTreeItem(node) })));
}

export function labelOf(item: vscode.TreeItem): string {
  return typeof item.label === "string" ? item.label : (item.label?.label ?? "");
}

/** What the live extension's probe command answers: what the panel's DOM holds for each selector. */
export interface PanelProbe {
  results: ProbeResult[];
  pwned: boolean;
  timings: Record<string, number>;
}

/** Asks the open panel of `kind` (optionally clicking `click` first) what `selectors` hold. */
export async function probePanel(kind: string, selectors: string[], click?: string): Promise<PanelProbe> {
  return vscode.commands.executeCommand<PanelProbe>(PROBE_PANEL_COMMAND, kind, selectors, click);
}

/** Probes until `ok` holds (a webview renders after its data arrives); the last answer goes into the failure. */
export async function probeUntil(
  kind: string,
  selectors: string[],
  ok: (r: ProbeResult[]) => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<PanelProbe> {
  let last: PanelProbe | undefined;
  try {
    return await waitFor(
      what,
      async () => {
        try {
          last = await probePanel(kind, selectors);
          return ok(last.results) ? last : undefined;
        } catch {
          return undefined; // the panel is not open or not ready yet
        }
      },
      timeoutMs,
      100,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; last probe: ${JSON.stringify(last?.results).slice(0, 800)}`);
  }
}
