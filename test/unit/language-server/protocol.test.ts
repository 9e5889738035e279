import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DEFAULT_PROMPT_TOKEN_LIMIT } from "../../../src/core/views/prompt-lint";
import { isConfigFile, promptDocumentPatterns } from "../../../src/language-server/protocol";

describe("language server: document selector", () => {
  it("serves agent-lab.json, prompts/*.md, *.prompt.md and the configured prompt file", () => {
    assert.deepEqual(promptDocumentPatterns(undefined), ["**/agent-lab.json", "**/prompts/*.md", "**/*.prompt.md"]);
    assert.deepEqual(promptDocumentPatterns("").length, 3);
    assert.equal(promptDocumentPatterns("./my\\agent.txt")[3], "**/my/agent.txt");
    // An absolute path cannot be a workspace glob: it is left to the other patterns.
    assert.equal(promptDocumentPatterns("/etc/prompt.md").length, 3);
    assert.equal(promptDocumentPatterns("C:\\p.md").length, 3);
  });

  it("tells the settings file from prompts", () => {
    assert.ok(isConfigFile("/w/agent-lab.json"));
    assert.ok(isConfigFile("C:\\w\\agent-lab.json"));
    assert.ok(isConfigFile("agent-lab.json"));
    assert.ok(!isConfigFile("/w/my-agent-lab.json"));
    assert.ok(!isConfigFile("/w/prompts/system.md"));
  });
});

describe("language server: contributions", () => {
  const REPO = resolve(__dirname, "..", "..", "..");
  it("package.json offers agentLab.promptTokenLimit with the server's default, and activates on *.prompt.md", () => {
    const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8"));
    assert.equal(
      pkg.contributes.configuration.properties["agentLab.promptTokenLimit"].default,
      DEFAULT_PROMPT_TOKEN_LIMIT,
    );
    assert.ok(pkg.activationEvents.includes("workspaceContains:**/*.prompt.md"));
    for (const dep of [
      "vscode-languageclient",
      "vscode-languageserver",
      "vscode-languageserver-textdocument",
      "jsonc-parser",
    ])
      assert.ok(pkg.dependencies[dep], dep);
  });

  it("the build bundles the server and the client as their own files", () => {
    const build = readFileSync(join(REPO, "scripts", "build.mjs"), "utf8");
    assert.match(build, /in: "src\/language-server\/server\.ts", out: "dist\/language-server\.js"/);
    assert.match(build, /in: "src\/extension\/language-client\/client\.ts", out: "dist\/language-client\.js"/);
    // The extension bundle must not pull in vscode-languageclient: it loads the client's bundle at run time.
    const loader = readFileSync(join(REPO, "src", "extension", "language-client", "load-client.ts"), "utf8");
    assert.doesNotMatch(loader, /from "vscode-languageclient|from "\.\/client"/);
  });
});
