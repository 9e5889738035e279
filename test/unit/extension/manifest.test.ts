/**
 * The manifest and the code agree: every command the extension registers is contributed (and the
 * reverse), menus and welcome buttons name real commands, views exist, icons ship; and activation
 * stays light: nothing the extension loads at start pulls in the tokenizer, the index or a model.
 */
import { strict as assert } from "node:assert";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { activationEvent, PANELS } from "../../../src/extension/webview/panels";
import { VIEWS } from "../../../src/extension/webview/views";
import { environmentFolders } from "../../../scripts/env-folders.mjs";

const REPO = resolve(__dirname, "..", "..", "..");
const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8"));
const contributed = new Set<string>(pkg.contributes.commands.map((c: { command: string }) => c.command));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith(".ts") ? [p] : [];
  });
}

describe("extension: package.json contributions and activation cost", () => {
  it("every contributed command has the category and a palette title (registration: activate.test.ts)", () => {
    for (const c of pkg.contributes.commands) {
      assert.equal(c.category, "Agent Lab", c.command);
      assert.ok(c.title && !c.title.startsWith("Agent Lab"), `${c.command}: the category supplies "Agent Lab: "`);
    }
    // The palette list, by title.
    const titles = new Set(pkg.contributes.commands.map((c: { title: string }) => c.title));
    for (const t of [
      "Prepare Data",
      "Build Index",
      "Search Corpus…",
      "Evaluate…",
      "Evaluate Closed-Book",
      "Collect SFT Data…",
      "Train SFT…",
      "Train GRPO…",
      "Compare Runs…",
      "Open Trace…",
      "Edit System Prompt",
      "Rerun Eval With Current Prompt",
      "Set Tinker API Key",
      "Clear Tinker API Key",
      "Start Local Backend",
      "Stop Local Backend",
      "Run Offline Pipeline",
      "Show Spend",
    ]) {
      assert.ok(titles.has(t), t);
    }
  });

  it("menus, welcome buttons and views refer to things that exist; icons ship", () => {
    for (const [menu, items] of Object.entries(pkg.contributes.menus as Record<string, { command: string }[]>)) {
      for (const item of items) assert.ok(contributed.has(item.command), `${menu}: ${item.command}`);
    }
    for (const w of pkg.contributes.viewsWelcome as { contents: string }[]) {
      for (const m of w.contents.matchAll(/\(command:([\w.]+)\)/g)) {
        assert.ok(contributed.has(m[1]) || m[1].startsWith("workbench."), m[1]);
      }
    }
    const views = pkg.contributes.views.agentLab.map((v: { id: string }) => v.id);
    assert.deepEqual(views, [
      "agentLab.runs",
      "agentLab.experiments",
      "agentLab.checkpoints",
      "agentLab.checkpointsCompare",
      "agentLab.jobs",
    ]);
    assert.ok(existsSync(join(REPO, pkg.contributes.viewsContainers.activitybar[0].icon)));
    assert.deepEqual(
      pkg.activationEvents.filter((e: string) => e.startsWith("workspaceContains:agent-lab.json")),
      ["workspaceContains:agent-lab.json"],
    );
    assert.equal(pkg.main, "./dist/extension.js");
  });

  it("the shell's static imports never reach the tokenizer, search index, models, Tinker client or eval runner", () => {
    // The webview panels (src/extension/panels, another engineer's) are checked by their own tests.
    // Nor the environments' code (registry, any folder's files beyond its info.ts): the shell names them from envs/catalog.ts.
    const heavy =
      /src\/core\/(base\/(chat\/(?!stand-in-tokenizer\b)|search(?!\/(index-location|bm25-format)\b)|tinker|data\/hub)|harness|steps\/(eval|demo)|envs\/(registry|discovered-code|[^/]+\/(?!(world-)?info\b)))|src\/server|@huggingface|onnxruntime/;
    // The catalog's folders are loaded at run time (envs/discovered-info.ts), not by a static import:
    // walk the light files the bundler's plugin imports in their place.
    const envsDir = join(REPO, "src", "core", "envs");
    const lightFiles = environmentFolders(envsDir).flatMap((f) =>
      f.light.map((l) => join(envsDir, f.folder, `${l}.ts`)),
    );
    const seen = new Set<string>();
    const walk = (file: string, from: string) => {
      if (seen.has(file) || file.includes(`${join("src", "extension", "panels")}`)) return;
      seen.add(file);
      const rel = file.slice(REPO.length + 1);
      assert.ok(!heavy.test(rel), `${rel} is loaded at activation (via ${from})`);
      if (file === join(envsDir, "discovered-info.ts")) for (const light of lightFiles) walk(light, rel);
      const text = readFileSync(file, "utf8");
      // Static imports only: `import type` is erased, dynamic import() loads later.
      for (const m of text.matchAll(/^import (?!type )[^;]*? from "([^"]+)";/gms)) {
        const spec = m[1];
        if (heavy.test(spec)) assert.fail(`${rel} imports ${spec}`);
        if (!spec.startsWith(".")) continue;
        const base = resolve(dirname(file), spec);
        const target = [`${base}.ts`, join(base, "index.ts")].find(existsSync);
        if (target) walk(target, rel);
      }
    };
    for (const f of sourceFiles(join(REPO, "src/extension")).filter(
      (f) => !f.includes("/panels/") && !f.includes("language-client"),
    )) {
      if (f.endsWith("extension.ts")) walk(f, "activate");
    }
    assert.ok(seen.size > 10, `${seen.size} modules checked`);
    for (const light of lightFiles) assert.ok(seen.has(light), `${light} is walked`);
  });

  it("every panel in panels.json restores after a reload: its onWebviewPanel activation event is listed, and no other", () => {
    const listed = (pkg.activationEvents as string[]).filter((e) => e.startsWith("onWebviewPanel:"));
    assert.deepEqual(listed.sort(), PANELS.map(activationEvent).sort());
  });

  it("panels.json names each kind once, each with a view type and a bundle that exists", () => {
    assert.deepEqual(PANELS.map((p) => p.kind).sort(), ["compare", "dashboard", "experiment", "playground", "trace"]);
    assert.equal(new Set(PANELS.map((p) => p.viewType)).size, PANELS.length);
    for (const p of PANELS)
      assert.ok(existsSync(join(REPO, "webview", p.bundle, "main.ts")), `${p.kind}: webview/${p.bundle}/main.ts`);
  });

  it("views.json: each sidebar webview view is contributed as a webview in the Agent Lab container, with a bundle that exists", () => {
    const contributedViews = pkg.contributes.views.agentLab as { id: string; type?: string }[];
    assert.deepEqual(
      VIEWS.map((v) => v.kind),
      ["checkpoints"],
    );
    for (const v of VIEWS) {
      assert.equal(contributedViews.find((c) => c.id === v.viewId)?.type, "webview", v.viewId);
      assert.ok(existsSync(join(REPO, "webview", v.bundle, "main.ts")), `${v.kind}: webview/${v.bundle}/main.ts`);
      assert.ok(!PANELS.some((p) => p.bundle === v.bundle), `${v.bundle}: a panel's bundle too`);
    }
  });
});
