/**
 * The sidebar's webview views (package.json contributes.views, `"type": "webview"`), listed once in
 * views.json as the editor panels are in panels.json: webview/build.mjs builds each entry's bundle
 * (webview/<bundle>/main.ts → dist/webview/<bundle>.js), the extension registers each view id.
 */
import table from "./views.json";

export type ViewKind = "checkpoints";

export interface ViewEntry {
  kind: ViewKind;
  /** The id in package.json's contributes.views.agentLab. */
  viewId: string;
  bundle: string;
}

/** JSON imports type `kind` as string; test/unit/extension/manifest.test.ts checks the table. */
export const VIEWS = table as readonly ViewEntry[];

export function viewOf(kind: ViewKind): ViewEntry {
  const entry = VIEWS.find((v) => v.kind === kind);
  if (!entry) throw new Error(`no view "${kind}" in views.json`);
  return entry;
}
