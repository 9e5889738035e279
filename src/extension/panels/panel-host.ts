/**
 * Owns every open panel of this extension window: opens or reveals them, restores them after a
 * reload (one WebviewPanelSerializer per view type) and registers the episodes.jsonl code lens.
 */
import * as vscode from "vscode";

export const PANEL_VIEW_TYPES = {
  trace: "agentLab.trace",
  compare: "agentLab.compare",
  dashboard: "agentLab.dashboard",
} as const;

const hosts = new WeakMap<vscode.ExtensionContext, PanelHost>();

export class PanelHost {
  static for(context: vscode.ExtensionContext): PanelHost {
    let host = hosts.get(context);
    if (!host) {
      host = new PanelHost(context);
      hosts.set(context, host);
    }
    return host;
  }

  private constructor(private readonly context: vscode.ExtensionContext) {}

  async openTrace(runDir: string, episodeId?: string): Promise<void> {
    this.placeholder(PANEL_VIEW_TYPES.trace, `Trace: ${runDir}${episodeId ? ` · ${episodeId}` : ""}`);
  }

  async openCompare(runDirs: string[]): Promise<void> {
    this.placeholder(PANEL_VIEW_TYPES.compare, `Compare ${runDirs.length} runs`);
  }

  async openDashboard(runDir: string): Promise<void> {
    this.placeholder(PANEL_VIEW_TYPES.dashboard, `Training: ${runDir}`);
  }

  registerSerializers(): void {}

  registerEpisodeCodeLens(): void {}

  private placeholder(viewType: string, title: string): void {
    const panel = vscode.window.createWebviewPanel(viewType, title, vscode.ViewColumn.Active, { enableScripts: false });
    panel.webview.html = `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none';"></head><body></body></html>`;
  }
}
