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
import { compareFromPalette, probePanel, probeUntil, waitFor, workspaceDir } from "./helpers";

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

/** What the extension wrote to the clipboard, and the files Save As… was answered with. */
function recordExports(saveTo: string): { copied: string[]; restore(): void } {
  const clipboard = vscode.env.clipboard as { writeText(text: string): Thenable<void> };
  const writeText = clipboard.writeText;
  const copied: string[] = [];
  clipboard.writeText = (text: string) => {
    copied.push(text);
    return writeText.call(clipboard, text);
  };
  const w = vscode.window as WindowApi;
  const showSaveDialog = w.showSaveDialog;
  w.showSaveDialog = (async (o?: vscode.SaveDialogOptions) => {
    const name = o?.defaultUri?.path.split("/").pop() ?? "table.md";
    return vscode.Uri.file(join(saveTo, name));
  }) as typeof w.showSaveDialog;
  return {
    copied,
    restore: () => {
      clipboard.writeText = writeText;
      w.showSaveDialog = showSaveDialog;
    },
  };
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
    const ui = recordExports(saveTo);
    try {
      // The trace opened above: its episode as Markdown, then saved as a file.
      await probePanel("trace", ["#episode-copy-markdown"], "#episode-copy-markdown");
      const md = await waitFor("the episode on the clipboard", () => ui.copied.at(-1), 10_000);
      assert.match(md, /^## heuristic · episode \S+\n/);
      assert.match(md, /\n\| part \| turn \| text \|\n\| --- \| --- \| --- \|\n\| question \| {2}\| /);
      await probePanel("trace", ["#episode-save"], "#episode-save");
      const saved = await waitFor(
        "the saved episode",
        () => {
          const file = readdirSync(saveTo).find((f) => f.startsWith("heuristic-episode-") && f.endsWith(".md"));
          return file ? readFileSync(join(saveTo, file), "utf8") : undefined;
        },
        10_000,
      );
      assert.equal(saved, md, "Save As… writes what Copy as Markdown copies");

      await compareFromPalette("heuristic", "closed-book");
      await probeUntil("compare", ["#ablation-table tbody tr"], (x) => x[0].count === 2, "the compare table");
      await probePanel("compare", ["#compare-table-copy-csv"], "#compare-table-copy-csv");
      const csv = await waitFor(
        "the table on the clipboard",
        () => ui.copied.find((t) => t.startsWith("run,")),
        10_000,
      );
      const lines = csv.trim().split("\r\n");
      assert.equal(lines.length, 3, csv);
      assert.match(lines[1], /^heuristic \(baseline\),/);
      assert.match(lines[2], /^closed-book,/);
    } finally {
      ui.restore();
    }
  });
});
