import assert from "node:assert/strict";
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
