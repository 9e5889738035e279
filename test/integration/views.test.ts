/**
 * The Runs and Checkpoints views, read through the live extension's tree data providers (the same
 * objects VS Code renders) against the fixture's real run folders and checkpoint registry.
 */
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { Lab } from "../../src/extension/register-commands";
import { activeExports, labelOf, treeRows, workspaceDir } from "./helpers";

/** An episodes.jsonl line as this build writes it (format 2: metrics by name). */
interface EpisodeLine {
  id: string;
  end: string;
  metrics: { em: number };
}

function episodesOf(run: string): EpisodeLine[] {
  return readFileSync(join(workspaceDir(), "runs", run, "episodes.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as EpisodeLine);
}

describe("Runs and Checkpoints views (fixture workspace)", () => {
  let lab: Lab;
  before(async () => {
    lab = await activeExports<Lab>();
    assert.ok(lab.runs && lab.checkpoints, "the extension exports its runs and checkpoints tree providers");
  });

  it("Runs lists the demo's eval runs with split, n, F1 and EM from their summaries", async () => {
    const rows = await treeRows(lab.runs);
    const byLabel = new Map(rows.map((r) => [labelOf(r.item), r]));
    for (const run of ["heuristic", "closed-book"]) {
      const row = byLabel.get(run);
      assert.ok(row, `run ${run} in the Runs view (have: ${[...byLabel.keys()].join(", ")})`);
      const summary = JSON.parse(readFileSync(join(workspaceDir(), "runs", run, "summary.json"), "utf8")) as {
        n: number;
        split: string;
      };
      const description = String(row.item.description ?? "");
      assert.match(description, new RegExp(`\\b${summary.split}\\b`));
      assert.match(description, new RegExp(`n=${summary.n}\\b`));
      assert.match(description, /F1 \S+/);
      assert.match(description, /EM \S+/);
      assert.equal(
        row.item.collapsibleState,
        vscode.TreeItemCollapsibleState.Collapsed,
        "an eval run expands into outcome groups",
      );
    }
  });

  it("a run's children group its episodes by outcome, and the groups hold every episode", async () => {
    const run = (await treeRows(lab.runs)).find((r) => labelOf(r.item) === "heuristic");
    assert.ok(run);
    // The outcome groups (the "failures by label" node beside them groups the same episodes another way).
    const groups = (await treeRows(lab.runs, run.node)).filter((g) => g.item.contextValue !== "failures");
    assert.ok(
      groups.length >= 2,
      `expected several outcome groups, got ${groups.map((g) => labelOf(g.item)).join(", ")}`,
    );
    const episodes = episodesOf("heuristic");
    let total = 0;
    for (const g of groups) {
      const children = await treeRows(lab.runs, g.node);
      total += children.length;
      assert.match(
        String(g.item.description),
        new RegExp(`^${children.length}\\b`),
        `group ${labelOf(g.item)} says how many it holds`,
      );
      for (const c of children)
        assert.equal(c.item.command?.command, "agentLab.openTrace", "clicking an episode opens its trace");
    }
    assert.equal(total, episodes.length);
    const correct = groups.find((g) => labelOf(g.item) === "correct");
    const expectedCorrect = episodes.filter((e) => e.end === "answer" && e.metrics.em >= 1).length;
    assert.equal(correct ? (await treeRows(lab.runs, correct.node)).length : 0, expectedCorrect);
  });

  it("Checkpoints lists the registry with paths and lineage as children", async () => {
    const registry = readFileSync(join(workspaceDir(), "runs", "checkpoints.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { name: string; sampler_path: string; state_path: string; parent: string | null });
    const rows = await treeRows(lab.checkpoints);
    assert.deepEqual(rows.map((r) => labelOf(r.item)).sort(), registry.map((e) => e.name).sort());
    for (const entry of registry) {
      const row = rows.find((r) => labelOf(r.item) === entry.name)!;
      const details = await treeRows(lab.checkpoints, row.node);
      const value = (label: string) => String(details.find((d) => labelOf(d.item) === label)?.item.description ?? "");
      assert.equal(value("sampler"), entry.sampler_path);
      assert.equal(value("state"), entry.state_path);
      const lineage = value("lineage");
      assert.ok(lineage.includes(entry.name), `lineage "${lineage}" names the checkpoint`);
      if (entry.parent)
        assert.ok(lineage.includes(entry.parent), `lineage "${lineage}" names the parent ${entry.parent}`);
    }
  });
});
