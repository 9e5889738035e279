/**
 * A table as text, the one format for every "Copy as Markdown / CSV" and "Save As…" in the panels
 * (Compare's table, a trace episode, the dashboard's checkpoints, an experiment record): the
 * webview sends a TextTable, the extension writes it in the chosen format. Pure (no Node, no
 * vscode): the webviews import the types.
 */

export interface TextTable {
  /** A heading in Markdown; the file name Save As offers. */
  title: string;
  headers: string[];
  rows: string[][];
  /** Lines under the title in Markdown (the CSV holds the table only). */
  notes?: string[];
}

export const TABLE_FORMATS = ["markdown", "csv"] as const;
export type TableFormat = (typeof TABLE_FORMATS)[number];

/** Each format's file extension and what a save dialog calls it. */
export const TABLE_FILES: Readonly<Record<TableFormat, { extension: string; label: string }>> = {
  markdown: { extension: "md", label: "Markdown" },
  csv: { extension: "csv", label: "CSV" },
};

/** A Markdown table cell: pipes escaped, line breaks kept as <br> (a model's reply spans lines). */
function markdownCell(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r?\n/g, "<br>");
}

/** A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break; quotes doubled. */
function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function tableMarkdown(t: TextTable): string {
  const width = t.headers.length;
  const line = (cells: readonly string[]) =>
    `| ${Array.from({ length: width }, (_, i) => markdownCell(cells[i] ?? "")).join(" | ")} |`;
  return [
    `## ${t.title.replace(/\r?\n/g, " ")}`,
    "",
    ...(t.notes?.length ? [...t.notes.map((n) => n.replace(/\r?\n/g, " ")), ""] : []),
    line(t.headers),
    `|${" --- |".repeat(width)}`,
    ...t.rows.map(line),
    "",
  ].join("\n");
}

export function tableCsv(t: TextTable): string {
  return [t.headers, ...t.rows].map((r) => r.map(csvField).join(",")).join("\r\n") + "\r\n";
}

export function tableText(t: TextTable, format: TableFormat): string {
  return format === "csv" ? tableCsv(t) : tableMarkdown(t);
}

/** Whether an untrusted value (a webview's message) is a TextTable. */
export function isTextTable(x: unknown): x is TextTable {
  if (typeof x !== "object" || x === null) return false;
  const t = x as Record<string, unknown>;
  const strings = (a: unknown): a is string[] => Array.isArray(a) && a.every((s) => typeof s === "string");
  return (
    typeof t.title === "string" &&
    strings(t.headers) &&
    Array.isArray(t.rows) &&
    t.rows.every(strings) &&
    (t.notes === undefined || strings(t.notes))
  );
}
