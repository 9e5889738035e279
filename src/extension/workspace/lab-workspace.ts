/**
 * The workspace as the shell sees it: which folder, the effective settings (defaults <
 * agent-lab.json < VS Code settings), and the absolute data and runs folders. Multi-root windows
 * use the first folder (Agent Lab keeps one project per window).
 */
import * as path from "node:path";
import * as vscode from "vscode";
import { type AgentLabConfig } from "../../core/base/config";
import { loadConfig } from "../../core/envs/config";
import { DEFAULT_LOCAL_PORT } from "../../core/steps/specs/common-flags";
import {
  jobBackend,
  SETTINGS_SECTION,
  settingsEnv,
  settingsOverrides,
  type JobBackend,
} from "../settings/settings-overrides";

export class LabWorkspace {
  /** The first workspace folder's path on the extension host's machine (remote-aware). */
  get folder(): string | undefined {
    const f = vscode.workspace.workspaceFolders?.[0];
    return f && f.uri.scheme === "file" ? f.uri.fsPath : undefined;
  }

  /** The folder, or a clear message when there is none. */
  requireFolder(): string {
    const f = this.folder;
    if (!f) throw new Error("open a folder first: Agent Lab keeps its data and runs in the workspace folder");
    return f;
  }

  private section(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration(SETTINGS_SECTION);
  }

  /** Settings the user set in VS Code, validated; these travel to jobs in AGENT_LAB_SETTINGS. */
  overrides(): Partial<AgentLabConfig> {
    const section = this.section();
    return settingsOverrides((key) => section.inspect(key));
  }

  /** Effective settings, exactly as a job will see them. */
  config(): AgentLabConfig {
    return loadConfig(this.requireFolder(), this.overrides(), {});
  }

  /** Environment entries a job needs for the settings (not the key: the job runner adds that). */
  jobEnv(): Record<string, string> {
    return settingsEnv(this.overrides());
  }

  backend(): JobBackend {
    return jobBackend(this.section().get("backend"));
  }

  localBackendPort(): number {
    const p = this.section().get<number>("localBackendPort");
    return Number.isInteger(p) && (p as number) > 0 ? (p as number) : DEFAULT_LOCAL_PORT;
  }

  runsDir(config: AgentLabConfig = this.config()): string {
    return path.resolve(this.requireFolder(), config.runsDir);
  }

  dataDir(config: AgentLabConfig = this.config()): string {
    return path.resolve(this.requireFolder(), config.dataDir);
  }
}
