/**
 * "Copy as Markdown", "Copy as CSV" and "Save As…" beside a table a panel shows: each sends the
 * table as text (TextTable, built when clicked so it is what is on screen) and the extension puts
 * it on the clipboard or in the file the user picks. `id` prefixes the buttons' ids (`${id}-copy-markdown`,
 * `${id}-copy-csv`, `${id}-save`), the panels' DOM contract with their probes.
 */
import type { TableFormat, TextTable } from "../../src/core/base/util/table-text";
import type { TableDestination } from "../../src/extension/webview/protocol";
import { h } from "./dom";
import { send } from "./host";

export function copyTableButtons(id: string, table: () => TextTable): HTMLElement {
  const button = (suffix: string, label: string, title: string, format: TableFormat, to: TableDestination) => {
    const b = h("vscode-button", { secondary: true, id: `${id}-${suffix}`, class: "copy-table", title }, label);
    b.addEventListener("click", () => send({ type: "table/export", table: table(), format, to }));
    return b;
  };
  return h(
    "span",
    { class: "copy-table-tools", id: `${id}-copy` },
    button("copy-markdown", "Copy as Markdown", "Copy this table as a Markdown table", "markdown", "clipboard"),
    button("copy-csv", "Copy as CSV", "Copy this table as CSV (for a spreadsheet or pandas)", "csv", "clipboard"),
    button("save", "Save As…", "Save this table as a Markdown (.md) or CSV (.csv) file", "markdown", "file"),
  );
}

/** A rendered <table> as text: its header cells and body rows, every column (hidden ones too). */
export function domTable(title: string, table: HTMLTableElement, notes?: string[]): TextTable {
  const cells = (row: Element) => Array.from(row.children).map((c) => (c.textContent ?? "").trim());
  const head = table.querySelector("thead tr") ?? table.querySelector("tr");
  const body = Array.from(table.querySelectorAll("tbody tr")).filter((r) => r !== head);
  return { title, headers: head ? cells(head) : [], rows: body.map(cells), ...(notes ? { notes } : {}) };
}
