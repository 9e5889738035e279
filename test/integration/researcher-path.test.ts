/**
 * The researcher's path through the trace and Compare in the real VS Code (issue: 26 frictions):
 * each turn named once, counts in words, a score's colour explained on hover, the j/k keys on
 * screen; and every table copies as Markdown or CSV onto the clipboard, or into the file Save As…
 * picks (a trace episode, Compare's table).
 */
import * as assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as vscode from "vscode";
import { answerUi, compareFromPalette, probePanel, probeUntil, waitFor, workspaceDir } from "./helpers";

interface EpisodeLine {
  id: string;
  question: string;
  turns?: unknown[];
}

function episodesOf(run: string): EpisodeLine[] {
  return readFileSync(join(workspaceDir(), "runs", run, "episodes.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as EpisodeLine);
}

type WindowApi = { -readonly [K in keyof typeof vscode.window]: (typeof vscode.window)[K] };

/**
 * Answers Save As… with a file in `saveTo` (the name the dialog offered, or with `extension` instead
 * of its own), and records the extension's notifications (a copy says "Copied … as …").
 */
function answerSaves(saveTo: string): { extension?: string; restore(): void; infos: string[] } {
  const w = vscode.window as WindowApi;
  const showSaveDialog = w.showSaveDialog;
  const ui = answerUi({});
  const state: { extension?: string; restore(): void; infos: string[] } = {
    restore: () => {
      w.showSaveDialog = showSaveDialog;
      ui.restore();
    },
    get infos() {
      return ui.messages("info");
    },
  };
  w.showSaveDialog = (async (o?: vscode.SaveDialogOptions) => {
    const name = o?.defaultUri?.path.split("/").pop() ?? "table.md";
    return vscode.Uri.file(join(saveTo, state.extension ? name.replace(/\.\w+$/, `.${state.extension}`) : name));
  }) as typeof w.showSaveDialog;
  return state;
}

/** A file Save As… wrote into `dir` whose name starts with `stem` and ends with `extension`. */
function savedFile(dir: string, stem: string, extension: string): Promise<string> {
  return waitFor(
    `the saved ${stem}…${extension}`,
    () => {
      const file = readdirSync(dir).find((f) => f.startsWith(stem) && f.endsWith(extension));
      return file ? readFileSync(join(dir, file), "utf8") : undefined;
    },
    10_000,
  );
}

describe("researcher's path: trace and Compare (real VS Code)", function () {
  this.timeout(90_000);
  let saveTo: string;
  before(() => {
    saveTo = mkdtempSync(join(tmpdir(), "agent-lab-it-save-"));
  });
  after(async () => {
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    rmSync(saveTo, { recursive: true, force: true });
  });

  it("trace: each turn named once, searches in words, a score's colour on hover, the j/k keys shown", async () => {
    const episodes = episodesOf("heuristic");
    const e = episodes.find((x) => (x.turns?.length ?? 0) > 1) ?? episodes[0];
    await vscode.commands.executeCommand("agentLab.openTraceAt", join(workspaceDir(), "runs", "heuristic"), e.id);
    const r = (
      await probeUntil(
        "trace",
        [
          "#stream .turn-sep",
          "#stream .section-title, #stream summary",
          "#episode-list .row .searches",
          "#keys-hint",
          "#gold-unchecked",
        ],
        (x) => x[0].count > 0 && x[2].count > 0 && x[4].count > 0,
        "the episode and its run's list",
      )
    ).results;
    const seps = r[0].text.split("\n");
    assert.deepEqual(
      seps,
      seps.map((_, i) => `Turn ${i + 1}`),
    );
    const titles = r[1].text.split("\n");
    assert.ok(
      titles.every((t) => !/^Turn \d/.test(t)),
      `titles do not repeat the turn: ${titles.join(" | ")}`,
    );
    assert.ok(
      r[2].text.split("\n").every((m) => /^\d+ search(es)?$/.test(m)),
      r[2].text,
    );
    assert.equal(r[3].text, "j next · k previous episode (outside the text fields)");
    assert.match(r[4].text, /answered without a search · \d+ yes\/no questions? \(/);
    const legend = await probePanel("trace", ["#list-legend[open]"]);
    assert.equal(legend.results[0].count, 1, "the colours' legend is open");
  });

  it("Copy as Markdown / CSV and Save As…: a trace episode and Compare's table reach the clipboard and a file", async () => {
    const ui = answerSaves(saveTo);
    try {
      // The trace opened above: its episode copied as Markdown (the clipboard, where the browser lets
      // the test read it back), and saved as a file.
      await probePanel("trace", ["#episode-copy-markdown"], "#episode-copy-markdown");
      await waitFor(
        "the copy's notification",
        () => ui.infos.find((m) => /^Copied “heuristic · episode \S+” as Markdown\.$/.test(m)),
        10_000,
      );
      await probePanel("trace", ["#episode-save"], "#episode-save");
      const md = await savedFile(saveTo, "heuristic-episode-", ".md");
      assert.match(md, /^## heuristic · episode \S+\n/);
      assert.match(md, /\n\| part \| turn \| text \|\n\| --- \| --- \| --- \|\n\| question \| {2}\| /);
      const clipboard = await vscode.env.clipboard.readText();
      if (clipboard) assert.equal(clipboard, md, "Copy as Markdown copies what Save As… writes");
      else console.log("      (the headless browser does not let the clipboard be read back: the file is checked)");

      await compareFromPalette("heuristic", "closed-book");
      await probeUntil("compare", ["#ablation-table tbody tr"], (x) => x[0].count === 2, "the compare table");
      await probePanel("compare", ["#compare-table-copy-csv"], "#compare-table-copy-csv");
      await waitFor(
        "the copy's notification",
        () => ui.infos.find((m) => m === "Copied “Compare · heuristic vs closed-book” as CSV."),
        10_000,
      );
      ui.extension = "csv"; // Save As… with a .csv name writes CSV
      await probePanel("compare", ["#compare-table-save"], "#compare-table-save");
      const csv = await savedFile(saveTo, "Compare-heuristic-vs-closed-book", ".csv");
      const lines = csv.trim().split("\r\n");
      assert.equal(lines.length, 3, csv);
      assert.match(lines[0], /^run,n,/);
      assert.match(lines[1], /^heuristic \(baseline\),/);
      assert.match(lines[2], /^closed-book,/);
    } finally {
      ui.restore();
    }
  });
});
