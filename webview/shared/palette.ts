/**
 * Theme colours for charts, read from VS Code's CSS variables when a chart is drawn and written
 * into it as values, so an exported SVG or PNG looks like the panel did.
 */
export function themeColor(name: string, fallback: string): string {
  const v = getComputedStyle(document.body).getPropertyValue(name).trim();
  return v || fallback;
}

let cached: { key: string; value: Palette } | undefined;

/**
 * The chart colours. Reading a CSS variable forces a style recalculation when the DOM changed, so
 * a dashboard drawing a dozen charts reads them once per theme (VS Code swaps the body's class and
 * the root's style when the theme changes).
 */
export function palette(): Palette {
  const key = `${document.body.className}|${document.documentElement.getAttribute("style") ?? ""}`;
  if (cached?.key !== key) cached = { key, value: readPalette() };
  return cached.value;
}

function readPalette() {
  return {
    fg: themeColor("--vscode-editor-foreground", "#cccccc"),
    muted: themeColor("--vscode-descriptionForeground", "#999999"),
    grid: themeColor("--vscode-editorWidget-border", "#555555"),
    bg: themeColor("--vscode-editor-background", "#1e1e1e"),
    series: [
      themeColor("--vscode-charts-blue", "#3794ff"),
      themeColor("--vscode-charts-orange", "#d18616"),
      themeColor("--vscode-charts-purple", "#b180d7"),
      themeColor("--vscode-charts-yellow", "#cca700"),
      themeColor("--vscode-charts-green", "#89d185"),
      themeColor("--vscode-charts-red", "#f14c4c"),
    ],
    good: themeColor("--vscode-charts-green", "#89d185"),
    bad: themeColor("--vscode-charts-red", "#f14c4c"),
    neutral: themeColor("--vscode-charts-foreground", "#cccccc"),
  };
}

export type Palette = ReturnType<typeof readPalette>;
