/** src/extension/webview/panels.json (typed as PanelEntry in panels.ts). */
export const PANELS: { kind: string; viewType: string; bundle: string }[];
/** src/extension/webview/views.json (typed as ViewEntry in views.ts). */
export const VIEWS: { kind: string; viewId: string; bundle: string }[];
export function buildWebviews(outdir: string, options?: { minify?: boolean; sourcemap?: boolean }): Promise<void>;
/** Throws, naming the file and line, when a built bundle cannot go inside the page's <script> element. */
export function checkInlineSafe(file: string): void;
