/**
 * The tinker-cookbook log folders this window shows: found under the workspace folder (rescanned
 * on refresh, so a new run appears with the Runs view's refresh or its file events) plus the
 * folders added with "Add tinker-cookbook Run Folder…" (remembered per workspace; they may live
 * outside it).
 */
import * as path from "node:path";
import type * as vscode from "vscode";
import { findCookbookRuns, isCookbookLogDir } from "../../core/views/interop/cookbook";
import type { LabWorkspace } from "../workspace/lab-workspace";

const ADDED_KEY = "agentLab.cookbookRuns";

export class CookbookRuns {
  private found: string[] | undefined;

  constructor(
    private readonly workspace: LabWorkspace,
    private readonly memento: vscode.Memento,
  ) {}

  /** Folders added by hand that still hold a cookbook run, then those found in the workspace. */
  dirs(): string[] {
    if (!this.found) {
      const root = this.workspace.folder;
      this.found = root ? findCookbookRuns(root) : [];
    }
    const added = this.added().filter((d) => isCookbookLogDir(d));
    return [...new Set([...added, ...this.found])];
  }

  /** Forgets the last scan; the next dirs() looks again. */
  rescan(): void {
    this.found = undefined;
  }

  private added(): string[] {
    const v = this.memento.get<unknown>(ADDED_KEY);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  }

  /** Adds a folder; throws with what to do when it is not a cookbook log_path. */
  async add(dir: string): Promise<void> {
    const abs = path.resolve(dir);
    if (!isCookbookLogDir(abs)) {
      throw new Error(
        `${abs} is not a tinker-cookbook log folder: pick the log_path folder, the one holding metrics.jsonl and config.json`,
      );
    }
    await this.memento.update(ADDED_KEY, [...new Set([...this.added(), abs])]);
  }
}
