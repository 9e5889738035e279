/**
 * The panels, listed once in panels.json: plain JSON so that webview/build.mjs (plain Node, no
 * TypeScript) reads the same table as the extension. A panel's kind, its webview view type (what
 * the serializer and package.json's `onWebviewPanel:` activation event name) and its bundle
 * (webview/<bundle>/main.ts → dist/webview/<bundle>.js) are all read from here.
 */
import table from "./panels.json";

export type PanelKind = "trace" | "compare" | "dashboard" | "experiment" | "playground";

export interface PanelEntry {
  kind: PanelKind;
  viewType: string;
  bundle: string;
}

/** JSON imports type `kind` as string; test/unit/extension/manifest.test.ts checks the table. */
export const PANELS = table as readonly PanelEntry[];

/** The activation event that restores a panel of this entry after a reload. */
export function activationEvent(p: PanelEntry): string {
  return `onWebviewPanel:${p.viewType}`;
}

export function panelOf(kind: PanelKind): PanelEntry {
  const entry = PANELS.find((p) => p.kind === kind);
  if (!entry) throw new Error(`no panel "${kind}" in panels.json`);
  return entry;
}
