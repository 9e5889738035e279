/**
 * A panel's "Copy as Markdown / CSV" and "Save As…": the table the webview sent, written as text
 * (core/base/util/table-text.ts) onto the clipboard or into a file the user picks. Save As writes
 * the format of the file name chosen (.csv → CSV, anything else Markdown).
 */
import * as vscode from "vscode";
import { writeFileAtomic } from "../../core/base/util/atomic-write";
import {
  isTextTable,
  TABLE_FILES,
  TABLE_FORMATS,
  tableText,
  type TableFormat,
  type TextTable,
} from "../../core/base/util/table-text";
import type { TableDestination } from "./protocol";

/** A file name from a table's title: words and digits, dashes between. */
export function tableFileStem(title: string): string {
  return (
    title
      .replace(/[^A-Za-z0-9._-]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 80) || "table"
  );
}

export async function exportTable(table: unknown, format: unknown, to: unknown): Promise<void> {
  if (!isTextTable(table)) throw new Error("table/export needs a table of strings");
  if (!(TABLE_FORMATS as readonly unknown[]).includes(format))
    throw new Error(`unknown table format ${String(format)}`);
  const chosen = format as TableFormat;
  if ((to as TableDestination) === "clipboard") return copyTable(table, chosen);
  if ((to as TableDestination) === "file") return saveTable(table, chosen);
  throw new Error(`unknown table destination ${String(to)}`);
}

async function copyTable(table: TextTable, format: TableFormat): Promise<void> {
  await vscode.env.clipboard.writeText(tableText(table, format));
  void vscode.window.showInformationMessage(`Copied “${table.title}” as ${TABLE_FILES[format].label}.`);
}

async function saveTable(table: TextTable, format: TableFormat): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const name = `${tableFileStem(table.title)}.${TABLE_FILES[format].extension}`;
  // The chosen format's filter first: the dialog offers its extension.
  const order = [format, ...TABLE_FORMATS.filter((f) => f !== format)];
  const target = await vscode.window.showSaveDialog({
    defaultUri: folder ? vscode.Uri.joinPath(folder, name) : vscode.Uri.file(name),
    filters: Object.fromEntries(order.map((f) => [TABLE_FILES[f].label, [TABLE_FILES[f].extension]])),
  });
  if (!target) return;
  const written: TableFormat = target.fsPath.toLowerCase().endsWith(`.${TABLE_FILES.csv.extension}`)
    ? "csv"
    : "markdown";
  writeFileAtomic(target.fsPath, tableText(table, written));
  void vscode.window.showInformationMessage(`Saved “${table.title}” to ${target.fsPath}`);
}
