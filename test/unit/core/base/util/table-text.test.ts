/** A table as Markdown and as CSV: cells with pipes, commas, quotes and line breaks survive each format. */
import assert from "node:assert/strict";
import { isTextTable, tableCsv, tableMarkdown, type TextTable } from "../../../../../src/core/base/util/table-text";

const TABLE: TextTable = {
  title: "Compare · base vs sft",
  notes: ["200 shared questions"],
  headers: ["run", "F1 [95% CI]", "reply"],
  rows: [
    ["base", "0.370 [0.305, 0.434]", 'said "yes" | then\nanswered'],
    ["sft", "0.512 [0.447, 0.576]"],
  ],
};

describe("base: tables as Markdown and CSV", () => {
  it("writes a Markdown table under its title and notes, pipes escaped, line breaks as <br>", () => {
    assert.equal(
      tableMarkdown(TABLE),
      [
        "## Compare · base vs sft",
        "",
        "200 shared questions",
        "",
        "| run | F1 [95% CI] | reply |",
        "| --- | --- | --- |",
        '| base | 0.370 [0.305, 0.434] | said "yes" \\| then<br>answered |',
        "| sft | 0.512 [0.447, 0.576] |  |",
        "",
      ].join("\n"),
    );
  });

  it("writes RFC 4180 CSV: quoted where a comma, quote or line break is, quotes doubled", () => {
    assert.equal(
      tableCsv(TABLE),
      'run,F1 [95% CI],reply\r\nbase,"0.370 [0.305, 0.434]","said ""yes"" | then\nanswered"\r\nsft,"0.512 [0.447, 0.576]"\r\n',
    );
  });

  it("accepts only tables of strings from a webview", () => {
    assert.ok(isTextTable(TABLE));
    assert.ok(!isTextTable({ ...TABLE, rows: [[1]] }));
    assert.ok(!isTextTable({ title: "x", headers: "a" }));
    assert.ok(!isTextTable(null));
  });
});
