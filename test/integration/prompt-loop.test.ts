/**
 * The prompt loop in the real editor: "Edit System Prompt" seeds the workspace prompt, the language
 * server marks the recipe's traps in a bad prompt (and nothing in the default), hovers the token
 * count, and the code lens at the top of the prompt reruns eval on val with the edited prompt: a
 * real `dist/cli.js eval` job whose manifest carries the new prompt's hash, then Compare opens.
 */
import * as assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { Lab } from "../../src/extension/register-commands";
import { activeExports, answerUi, probeUntil, waitFor, workspaceDir } from "./helpers";
import { LOCAL_BACKEND_MODEL } from "../../src/core/steps/eval/backend-model";

const BAD_PROMPT =
  "You are a research agent.\nSearch with <search>keywords</search>.\nAnswer with <answer>final answer</answer>.\n";

function ours(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === "agent-lab");
}

function codeOf(d: vscode.Diagnostic): string {
  return typeof d.code === "object" ? String(d.code.value) : String(d.code);
}

describe("prompt loop: language server, Edit System Prompt, rerun from the code lens", function () {
  this.timeout(180_000);
  let lab: Lab;
  let configFile: string;
  let savedConfig: string | undefined;

  before(async () => {
    lab = await activeExports<Lab>();
    configFile = join(workspaceDir(), "agent-lab.json");
    savedConfig = existsSync(configFile) ? readFileSync(configFile, "utf8") : undefined;
  });

  after(async () => {
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    if (savedConfig !== undefined) writeFileSync(configFile, savedConfig);
    rmSync(join(workspaceDir(), "prompts"), { recursive: true, force: true });
    await vscode.workspace
      .getConfiguration("agentLab")
      .update("backend", undefined, vscode.ConfigurationTarget.Workspace);
  });

  it("Edit System Prompt copies the default to prompts/system.md, records it in agent-lab.json and opens it", async () => {
    const ui = answerUi({});
    try {
      await vscode.commands.executeCommand("agentLab.editSystemPrompt");
      assert.deepEqual(ui.messages("error"), []);
    } finally {
      ui.restore();
    }
    const file = join(workspaceDir(), "prompts", "system.md");
    assert.equal(
      readFileSync(file, "utf8"),
      readFileSync(lab.context.asAbsolutePath(join("data", "prompts", "system.md")), "utf8"),
    );
    assert.equal(
      (JSON.parse(readFileSync(configFile, "utf8")) as { systemPromptFile?: string }).systemPromptFile,
      "prompts/system.md",
    );
    await waitFor(
      "the prompt open in the editor",
      () => vscode.window.activeTextEditor?.document.uri.fsPath === file,
      10_000,
    );
  });

  it("marks the recipe's traps in a bad prompt, nothing in the default one, and hovers the token count", async () => {
    const bad = vscode.Uri.file(join(workspaceDir(), "prompts", "bad.md"));
    writeFileSync(bad.fsPath, BAD_PROMPT);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(bad));
    // The first document starts the server and loads the tokenizer: allow it time on a busy machine.
    const diags = await waitFor(
      "agent-lab diagnostics on prompts/bad.md",
      () => (ours(bad).length > 0 ? ours(bad) : undefined),
      90_000,
      250,
    );
    const codes = diags.map(codeOf).sort();
    assert.deepEqual(codes, ["no-concrete-example", "placeholder-in-tag", "placeholder-in-tag"]);
    const keywords = diags.find((d) => /"keywords"/.test(d.message))!;
    assert.deepEqual(
      [keywords.range.start.line, keywords.range.start.character, keywords.range.end.character],
      [1, 20, 28],
    );

    const system = vscode.Uri.file(join(workspaceDir(), "prompts", "system.md"));
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
      "vscode.executeHoverProvider",
      system,
      new vscode.Position(0, 2),
    );
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === "string" ? c : c.value))).join("\n");
    assert.match(text, /System prompt: \d+ tokens/);
    assert.match(text, /per episode/);
    assert.deepEqual(ours(system), [], "the shipped default prompt gets no diagnostics");
  });

  it("follows systemPromptFile to a file outside prompts/: diagnostics there too", async () => {
    const custom = vscode.Uri.file(join(workspaceDir(), "agent", "research.txt"));
    mkdirSync(join(workspaceDir(), "agent"), { recursive: true });
    writeFileSync(custom.fsPath, BAD_PROMPT);
    const config = JSON.parse(readFileSync(configFile, "utf8")) as Record<string, unknown>;
    writeFileSync(configFile, JSON.stringify({ ...config, systemPromptFile: "agent/research.txt" }, null, 2) + "\n");
    try {
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(custom));
      const diags = await waitFor(
        "agent-lab diagnostics on agent/research.txt",
        () => (ours(custom).length > 0 ? ours(custom) : undefined),
        60_000,
        250,
      );
      assert.ok(diags.some((d) => codeOf(d) === "placeholder-in-tag"));
    } finally {
      writeFileSync(configFile, JSON.stringify(config, null, 2) + "\n");
      await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
      rmSync(join(workspaceDir(), "agent"), { recursive: true, force: true });
    }
  });

  it("the code lens reruns eval on val with the edited prompt: the run's manifest has the new hash, then Compare opens", async () => {
    // The scripted heuristic reader: a full val eval in seconds, free and offline.
    await vscode.workspace
      .getConfiguration("agentLab")
      .update("backend", "scripted", vscode.ConfigurationTarget.Workspace);
    const uri = vscode.Uri.file(join(workspaceDir(), "prompts", "system.md"));
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    // Edited but not saved: the rerun must save what is on screen before the eval reads the file.
    await editor.edit((e) =>
      e.insert(new vscode.Position(editor.document.lineCount, 0), "\nKeep every search under six words."),
    );
    assert.ok(editor.document.isDirty);
    const expectedSha = createHash("sha256").update(editor.document.getText().trimEnd(), "utf8").digest("hex");

    const lenses = await waitFor(
      "the rerun code lens",
      async () => {
        const l = await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", uri);
        return l?.find((x) => x.command?.command === "agentLab.rerunEvalWithPrompt");
      },
      30_000,
      250,
    );
    assert.equal(lenses.range.start.line, 0);
    assert.match(lenses.command!.title, /Rerun eval on val with this prompt/);

    const ui = answerUi({});
    try {
      await vscode.commands.executeCommand(lenses.command!.command, ...(lenses.command!.arguments ?? []));
      assert.deepEqual(ui.messages("error"), []);
      const run = `prompt-system-${expectedSha.slice(0, 8)}`;
      const job = await waitFor(
        `a job writing runs/${run}`,
        () => lab.jobs.list().find((j) => j.record.run_dir?.endsWith(`/${run}`)),
        10_000,
      );
      assert.deepEqual(job.record.command.slice(0, 5), ["eval", "--name", run, "--split", "val"]);
      assert.ok(
        job.record.command.join(" ").includes(`--prompt ${join("prompts", "system.md")}`),
        job.record.command.join(" "),
      );
      const status = await Promise.race([
        job.finished,
        new Promise<never>((_, no) => setTimeout(() => no(new Error("eval job did not finish in 120 s")), 120_000)),
      ]);
      assert.equal(status.state, "done", `job ended ${status.state}: ${status.reason ?? ""}`);
      assert.ok(!editor.document.isDirty, "the prompt was saved before the eval read it");

      const manifest = JSON.parse(readFileSync(join(workspaceDir(), "runs", run, "manifest.json"), "utf8")) as {
        system_prompt: { sha256: string };
        split: { name: string };
      };
      assert.equal(manifest.system_prompt.sha256, expectedSha);
      assert.equal(manifest.split.name, "val");
      const baseline = JSON.parse(readFileSync(join(workspaceDir(), "runs", "heuristic", "manifest.json"), "utf8")) as {
        system_prompt: { sha256: string };
      };
      assert.notEqual(baseline.system_prompt.sha256, expectedSha, "the fingerprint shows the prompt changed");

      await waitFor(
        "the compare panel",
        () =>
          vscode.window.tabGroups.all
            .flatMap((g) => g.tabs)
            .find((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.includes("agentLab.compare")),
        20_000,
      );
    } finally {
      ui.restore();
    }
  });

  it("edited in place and rerun again: Compare diffs the two prompts from the runs' own copies", async () => {
    const uri = vscode.Uri.file(join(workspaceDir(), "prompts", "system.md"));
    const before = lab.runs.currentRows().filter((r) => r.name.startsWith("prompt-system-"));
    assert.equal(before.length, 1, "the rerun of the test above");
    const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    const added = "Answer with the shortest name that fits.";
    await editor.edit((e) => e.insert(new vscode.Position(editor.document.lineCount, 0), `\n${added}`));
    await editor.document.save();
    const lens = await waitFor(
      "the rerun code lens",
      async () =>
        (await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", uri))?.find(
          (x) => x.command?.command === "agentLab.rerunEvalWithPrompt",
        ),
      30_000,
      250,
    );
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    const ui = answerUi({});
    try {
      await vscode.commands.executeCommand(lens.command!.command, ...(lens.command!.arguments ?? []));
      const job = await waitFor(
        "the second rerun",
        () =>
          lab.jobs
            .list()
            .find((j) => j.record.command[2]?.startsWith("prompt-system-") && j.record.command[2] !== before[0].name),
        10_000,
      );
      const status = await Promise.race([
        job.finished,
        new Promise<never>((_, no) => setTimeout(() => no(new Error("eval job did not finish in 120 s")), 120_000)),
      ]);
      assert.equal(status.state, "done", `job ended ${status.state}: ${status.reason ?? ""}`);
      // The baseline is the first rerun, whose prompt file now holds the edited text: its own copy is what it sent.
      const r = (
        await probeUntil(
          "compare",
          ["#prompt-diffs", "#prompt-diffs .diff-added"],
          (x) => x[0].count === 1,
          "the prompt diff",
        )
      ).results;
      assert.doesNotMatch(r[0].text, /is not on disk any more/);
      assert.equal(r[1].text, `+ ${added}`);
    } finally {
      ui.restore();
    }
  });

  it("on the local backend (an offline workspace) the code lens names the local model it will run, at $0", async () => {
    await vscode.workspace
      .getConfiguration("agentLab")
      .update("backend", "local", vscode.ConfigurationTarget.Workspace);
    const uri = vscode.Uri.file(join(workspaceDir(), "prompts", "system.md"));
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    const title = await waitFor(
      "the cost lens on the local backend's model",
      async () =>
        (await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", uri))
          ?.map((l) => l.command?.title ?? "")
          .find((t) => t.includes(LOCAL_BACKEND_MODEL)),
      30_000,
      250,
    );
    assert.match(
      title,
      new RegExp(`^\\d+ tokens · ≈ \\$0 prefill per episode on ${LOCAL_BACKEND_MODEL} \\(estimate\\)$`),
    );
  });
});
