/**
 * The language server over its real stdio protocol: a child process speaking LSP (JSON-RPC with
 * Content-Length framing), driven the way VS Code's client drives it.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
} from "vscode-languageserver-protocol/node";
import { defaultSystemPromptFile } from "../../../src/core/harness/prompts";
import { promptTokenizer } from "../../../src/core/views/prompt-lint";
import { RERUN_COMMAND, SETTINGS_NOTIFICATION } from "../../../src/language-server/protocol";
import { LOCAL_BACKEND_MODEL } from "../../../src/core/steps/eval/backend-model";
import { OFFLINE_PROMPT, PIPELINE_MARKER } from "../../../src/core/steps/pipeline/pipeline-folder";
import { OFFLINE_WORLD } from "../../../src/core/envs/hotpotqa/offline";

const ROOT = resolve(__dirname, "..", "..", "..");
const BAD_PROMPT =
  "You are a research agent.\nSearch with <search>keywords</search>.\nAnswer with <answer>final answer</answer>.\nOr call <tool>wiki</tool>.\n";

describe("language server: over stdio", function () {
  this.timeout(60_000);
  let child: ChildProcess;
  let conn: ProtocolConnection;
  let workspace: string;
  const published = new Map<string, PublishDiagnosticsParams[]>();
  const waiters: Array<() => void> = [];

  /** The first publishDiagnostics for `uri` after `since` earlier ones that `wanted` accepts (re-lints may publish in between). */
  async function diagnosticsFor(
    uri: string,
    since: number,
    wanted: (d: Diagnostic[]) => boolean = () => true,
  ): Promise<Diagnostic[]> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const found = (published.get(uri) ?? []).slice(since).find((p) => wanted(p.diagnostics));
      if (found) return found.diagnostics;
      if (Date.now() > deadline)
        throw new Error(`no matching diagnostics for ${uri}: ${JSON.stringify(published.get(uri))}`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 500);
      });
    }
  }
  const count = (uri: string) => published.get(uri)?.length ?? 0;

  function open(file: string, text: string): string {
    const uri = pathToFileURL(file).href;
    void conn.sendNotification("textDocument/didOpen", {
      textDocument: { uri, languageId: file.endsWith(".json") ? "json" : "markdown", version: 1, text },
    });
    return uri;
  }

  before(async () => {
    workspace = mkdtempSync(join(tmpdir(), "agent-lab-ls-"));
    mkdirSync(join(workspace, "prompts"));
    writeFileSync(
      join(workspace, "agent-lab.json"),
      JSON.stringify({ model: "Test/Model-1B", prices: { "Test/Model-1B": { prefill: 2, sample: 3, train: 4 } } }),
    );
    child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "src", "language-server", "server.ts"), "--stdio"], {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "inherit"],
    });
    conn = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    conn.onNotification("textDocument/publishDiagnostics", (p: PublishDiagnosticsParams) => {
      published.set(p.uri, [...(published.get(p.uri) ?? []), p]);
      waiters.splice(0).forEach((w) => w());
    });
    conn.listen();
    const init = await conn.sendRequest("initialize", {
      processId: process.pid,
      rootUri: pathToFileURL(workspace).href,
      workspaceFolders: [{ uri: pathToFileURL(workspace).href, name: "ws" }],
      capabilities: {},
      initializationOptions: { promptTokenLimit: 1000 },
    });
    const caps = (init as { capabilities: Record<string, unknown> }).capabilities;
    assert.ok(caps.hoverProvider);
    assert.ok(caps.codeLensProvider);
    await conn.sendNotification("initialized", {});
  });

  after(async () => {
    if (conn) {
      await conn.sendRequest("shutdown").catch(() => undefined);
      await conn.sendNotification("exit").catch(() => undefined);
      conn.dispose();
    }
    child?.kill();
  });

  it("publishes the recipe's traps for a bad prompt, at the offending text", async () => {
    const uri = open(join(workspace, "prompts", "bad.md"), BAD_PROMPT);
    const diags = await diagnosticsFor(uri, 0);
    const byCode = diags.map(
      (d) => `${d.code}@${d.range.start.line}:${d.range.start.character}-${d.range.end.character}`,
    );
    assert.deepEqual(byCode, [
      "no-concrete-example@0:0-25",
      "placeholder-in-tag@1:20-28",
      "placeholder-in-tag@2:20-32",
      "unknown-tag@3:8-14",
    ]);
    assert.ok(diags.every((d) => d.source === "agent-lab"));
    assert.match(diags[1].message, /"keywords".*verbatim/);
  });

  it("publishes nothing for the shipped default prompt, and clears a fixed prompt", async () => {
    const good = readFileSync(defaultSystemPromptFile(), "utf8");
    const uri = open(join(workspace, "prompts", "system.md"), good);
    assert.deepEqual(await diagnosticsFor(uri, 0), []);

    const bad = pathToFileURL(join(workspace, "prompts", "bad.md")).href;
    const before = count(bad);
    void conn.sendNotification("textDocument/didChange", {
      textDocument: { uri: bad, version: 2 },
      contentChanges: [{ text: good }],
    });
    assert.deepEqual(await diagnosticsFor(bad, before), []);
  });

  it("hovers with the token count and the prefill estimate at the configured model's price", async () => {
    const good = readFileSync(defaultSystemPromptFile(), "utf8");
    const tokens = (await promptTokenizer()).encode(good.trimEnd()).length;
    const uri = pathToFileURL(join(workspace, "prompts", "system.md")).href;
    const hover = (await conn.sendRequest("textDocument/hover", {
      textDocument: { uri },
      position: { line: 0, character: 3 },
    })) as { contents: { value: string } };
    const md = hover.contents.value;
    assert.match(md, new RegExp(`System prompt: ${tokens} tokens`));
    assert.match(md, /Test\/Model-1B/);
    const usd = ((tokens * 3 * 2) / 1e6).toPrecision(2);
    assert.ok(md.includes(`$${usd} per episode`), md);
    assert.match(md, /estimate/i);
    // Only on the first line: elsewhere in the prose a hover would be in the way.
    assert.equal(
      await conn.sendRequest("textDocument/hover", { textDocument: { uri }, position: { line: 3, character: 3 } }),
      null,
    );
  });

  it("offers the rerun code lens with the prompt's path, and the token count, on the first line", async () => {
    const file = join(workspace, "prompts", "system.md");
    type Lens = {
      range: { start: { line: number } };
      command: { title: string; command: string; arguments?: unknown[] };
    };
    const lenses = (await conn.sendRequest("textDocument/codeLens", {
      textDocument: { uri: pathToFileURL(file).href },
    })) as Lens[];
    assert.equal(lenses.length, 2);
    assert.ok(lenses.every((l) => l.range.start.line === 0));
    assert.equal(lenses[0].command.command, RERUN_COMMAND);
    assert.deepEqual(lenses[0].command.arguments, [file]);
    const tokens = (await promptTokenizer()).encode(readFileSync(defaultSystemPromptFile(), "utf8").trimEnd()).length;
    assert.match(
      lenses[1].command.title,
      new RegExp(`^${tokens} tokens · ≈ \\$[0-9.]+ prefill per episode on Test/Model-1B`),
    );
    // A closed-book prompt gets the count but no rerun: the lens launches a research eval.
    const closed = join(workspace, "prompts", "closed-book.md");
    open(closed, readFileSync(defaultSystemPromptFile(true), "utf8"));
    const closedLenses = (await conn.sendRequest("textDocument/codeLens", {
      textDocument: { uri: pathToFileURL(closed).href },
    })) as Lens[];
    assert.deepEqual(
      closedLenses.map((l) => l.command.command),
      [""],
    );
  });

  it("validates agent-lab.json with the CLI's rules, at the key", async () => {
    const text = '{\n  "model": "Test/Model-1B",\n  "topk": 3\n}\n';
    const diags = await diagnosticsFor(open(join(workspace, "agent-lab.json"), text), 0);
    assert.equal(diags.length, 1);
    assert.equal(diags[0].code, "unknown-setting");
    assert.deepEqual(diags[0].range, { start: { line: 2, character: 2 }, end: { line: 2, character: 8 } });
    assert.match(diags[0].message, /"topk" is not a setting/);
  });

  it("applies a new token limit from the client's settings notification", async () => {
    const uri = pathToFileURL(join(workspace, "prompts", "system.md")).href;
    const before = count(uri);
    void conn.sendNotification(SETTINGS_NOTIFICATION, { promptTokenLimit: 40 });
    const diags = await diagnosticsFor(uri, before, (d) => d.length > 0);
    assert.deepEqual(
      diags.map((d) => d.code),
      ["token-limit"],
    );
    assert.match(diags[0].message, /over the limit of 40/);
  });

  it("on the local backend the lens names its model ($0), and the pipeline's own prompts get no warnings", async () => {
    void conn.sendNotification(SETTINGS_NOTIFICATION, { promptTokenLimit: 1000, backend: "local" });
    const file = join(workspace, "prompts", "system.md");
    type Lens = { command: { title: string } };
    const title = async (f: string) =>
      ((await conn.sendRequest("textDocument/codeLens", { textDocument: { uri: pathToFileURL(f).href } })) as Lens[])
        .map((l) => l.command.title)
        .join(" | ");
    const lens = await title(file);
    assert.match(lens, new RegExp(`≈ \\$0 prefill per episode on ${LOCAL_BACKEND_MODEL} \\(estimate\\)`), lens);
    assert.doesNotMatch(lens, /Test\/Model-1B/);

    // A pipeline folder (its marker) and the prompt it wrote: measured for the tiny model, not linted.
    const pipeline = join(workspace, "pipeline");
    mkdirSync(join(pipeline, "prompts"), { recursive: true });
    writeFileSync(join(pipeline, PIPELINE_MARKER), "");
    const own = OFFLINE_WORLD.tools!.prompts!.system;
    writeFileSync(join(pipeline, OFFLINE_PROMPT), own);
    assert.deepEqual(await diagnosticsFor(open(join(pipeline, OFFLINE_PROMPT), own), 0), []);
    // The same text anywhere else is a prompt like any other: the recipe's advice applies.
    const copy = await diagnosticsFor(open(join(workspace, "prompts", "copy.md"), own), 0);
    assert.ok(copy.length > 0, "the offline prompt's text outside a pipeline folder is linted");
  });
});
