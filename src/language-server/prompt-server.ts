/**
 * The language server's behaviour on any LSP connection (stdio in the product, a stream pair in
 * tests): diagnostics for prompt files and agent-lab.json, a hover with the prompt's token count
 * and prefill cost, and a code lens that reruns eval with the prompt. All the rules live in
 * src/core/views/prompt-lint; this file only maps them onto the protocol.
 */
import { fileURLToPath } from "node:url";
import { resolve } from "node:path";
import {
  DiagnosticSeverity,
  TextDocuments,
  TextDocumentSyncKind,
  type CodeLens,
  type Connection,
  type Diagnostic,
  type Hover,
  type InitializeResult,
} from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import { readWorkspaceConfig, validateOverrides, type AgentLabConfig } from "../core/base/config";
import { mergeConfig } from "../core/envs/config";
import { isPipelinePrompt } from "../core/steps/pipeline/pipeline-folder";
import {
  countPromptTokens,
  DEFAULT_PROMPT_TOKEN_LIMIT,
  estimatePromptPrefill,
  isClosedBookPromptFile,
  lintConfigText,
  lintPrompt,
  promptHoverMarkdown,
  promptLensSummary,
  promptTokenizer,
  tokenLimitIssue,
  type LintIssue,
  type PrefillEstimate,
} from "../core/views/prompt-lint";
import {
  DIAGNOSTIC_SOURCE,
  isConfigFile,
  RERUN_COMMAND,
  RERUN_LENS_TITLE,
  SETTINGS_NOTIFICATION,
  type PromptServerSettings,
} from "./protocol";

/** Typing pauses shorter than this do not re-lint. */
const DEBOUNCE_MS = 150;

const SEVERITY: Record<LintIssue["severity"], DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
};

function filePath(uri: string): string {
  try {
    return uri.startsWith("file:") ? fileURLToPath(uri) : uri;
  } catch {
    return uri;
  }
}

export function startPromptServer(connection: Connection): void {
  const documents = new TextDocuments(TextDocument);
  let workspaceDir: string | undefined;
  let settings: PromptServerSettings = {};
  const pending = new Map<string, NodeJS.Timeout>();

  const tokenLimit = () => {
    const l = settings.promptTokenLimit;
    return Number.isInteger(l) && (l as number) > 0 ? (l as number) : DEFAULT_PROMPT_TOKEN_LIMIT;
  };

  /** Effective settings as a job would see them (agent-lab.json < VS Code settings), or why not. */
  const config = (): AgentLabConfig | { error: string } => {
    try {
      const file = workspaceDir ? readWorkspaceConfig(workspaceDir) : {};
      return mergeConfig(file, validateOverrides(settings.overrides ?? {}, "VS Code settings (agentLab.*)"));
    } catch (e) {
      return { error: (e as Error).message };
    }
  };

  const applySettings = (raw: unknown) => {
    if (raw && typeof raw === "object") settings = raw as PromptServerSettings;
  };

  connection.onInitialize((params): InitializeResult => {
    const folder = params.workspaceFolders?.[0]?.uri ?? params.rootUri ?? undefined;
    workspaceDir = folder ? filePath(folder) : undefined;
    applySettings(params.initializationOptions);
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        hoverProvider: true,
        codeLensProvider: { resolveProvider: false },
      },
      serverInfo: { name: "agent-lab-prompts" },
    };
  });

  connection.onNotification(SETTINGS_NOTIFICATION, (raw: unknown) => {
    applySettings(raw);
    for (const doc of documents.all()) schedule(doc, 0);
  });

  async function diagnose(doc: TextDocument): Promise<Diagnostic[]> {
    const text = doc.getText();
    const path = filePath(doc.uri);
    let issues: LintIssue[];
    if (isConfigFile(path)) {
      issues = lintConfigText(text, { workspaceDir });
    } else {
      // The pipeline's own prompts drive the local tiny model, which learns its actions from the
      // scripted teacher: the recipe's advice for a pretrained model reading a prompt does not apply.
      issues = isPipelinePrompt(path) ? [] : lintPrompt(text, { closedBook: isClosedBookPromptFile(path) });
      try {
        const limit = tokenLimit();
        const over = tokenLimitIssue(countPromptTokens(await promptTokenizer(), text, limit), limit, text);
        if (over) issues.push(over);
      } catch (e) {
        connection.console.warn(`agent-lab: no token count (${(e as Error).message})`);
      }
    }
    return issues.map((i) => ({
      range: { start: doc.positionAt(i.start), end: doc.positionAt(i.end) },
      severity: SEVERITY[i.severity],
      code: i.code,
      source: DIAGNOSTIC_SOURCE,
      message: i.message,
    }));
  }

  function schedule(doc: TextDocument, delay = DEBOUNCE_MS): void {
    clearTimeout(pending.get(doc.uri));
    pending.set(
      doc.uri,
      setTimeout(() => {
        pending.delete(doc.uri);
        const version = doc.version;
        void diagnose(doc).then(
          (diagnostics) => {
            // A newer edit re-schedules; publishing an old result would flash stale squiggles.
            const current = documents.get(doc.uri);
            if (current && current.version === version)
              void connection.sendDiagnostics({ uri: doc.uri, version, diagnostics });
          },
          (e: unknown) => connection.console.error(`agent-lab: linting ${doc.uri} failed: ${(e as Error).stack ?? e}`),
        );
      }, delay),
    );
  }

  documents.onDidOpen((e) => schedule(e.document, 0));
  documents.onDidChangeContent((e) => {
    schedule(e.document);
    // Prices, the model and the prompt file name live in agent-lab.json: re-check prompts too.
    if (isConfigFile(filePath(e.document.uri))) for (const d of documents.all()) if (d !== e.document) schedule(d);
  });
  documents.onDidClose((e) => {
    clearTimeout(pending.get(e.document.uri));
    pending.delete(e.document.uri);
    void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] });
  });

  /** Token count and the prefill estimate (or why there is none) for a prompt's current text. */
  async function measure(
    doc: TextDocument,
  ): Promise<{ tokens: number; estimate: PrefillEstimate | { error: string } }> {
    const tokens = countPromptTokens(await promptTokenizer(), doc.getText()).count;
    const cfg = config();
    if ("error" in cfg) return { tokens, estimate: cfg };
    try {
      return { tokens, estimate: estimatePromptPrefill(tokens, cfg, settings.backend) };
    } catch (e) {
      return { tokens, estimate: { error: (e as Error).message } };
    }
  }

  // On the first line only: a hover wherever the mouse rests in a prose file would be in the way.
  connection.onHover(async (params): Promise<Hover | null> => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc || isConfigFile(filePath(doc.uri)) || params.position.line !== 0) return null;
    const { tokens, estimate } = await measure(doc);
    return {
      contents: { kind: "markdown", value: promptHoverMarkdown(tokens, estimate, tokenLimit()) },
      range: { start: { line: 0, character: 0 }, end: doc.positionAt(doc.getText().search(/\r?\n|$/)) },
    };
  });

  /** The most common failure label of the last eval with this prompt file (undefined: none, or not readable). */
  async function lastEvalFailureLens(promptFile: string): Promise<string | undefined> {
    const cfg = config();
    if (!workspaceDir || "error" in cfg) return undefined;
    try {
      // Loaded when a lens asks: the registry brings every environment's code.
      const { promptFailureLens } = await import("../core/views/failures/prompt-lens");
      return await promptFailureLens({
        runsDir: resolve(workspaceDir, cfg.runsDir),
        promptFile,
        dataDir: resolve(workspaceDir, cfg.dataDir),
      });
    } catch (e) {
      connection.console.warn(`agent-lab: no failure labels for the lens (${(e as Error).message})`);
      return undefined;
    }
  }

  connection.onCodeLens(async (params): Promise<CodeLens[]> => {
    const doc = documents.get(params.textDocument.uri);
    const path = filePath(params.textDocument.uri);
    if (!doc || isConfigFile(path)) return [];
    const top = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    const lenses: CodeLens[] = [];
    // A closed-book prompt cannot drive the research eval the lens launches.
    if (!isClosedBookPromptFile(path) && params.textDocument.uri.startsWith("file:")) {
      lenses.push({ range: top, command: { title: RERUN_LENS_TITLE, command: RERUN_COMMAND, arguments: [path] } });
    }
    const failureLens = await lastEvalFailureLens(path);
    if (failureLens) lenses.push({ range: top, command: { title: failureLens, command: "" } });
    try {
      const { tokens, estimate } = await measure(doc);
      // An empty command id: VS Code shows the title as plain text.
      lenses.push({ range: top, command: { title: promptLensSummary(tokens, estimate), command: "" } });
    } catch (e) {
      connection.console.warn(`agent-lab: no token count (${(e as Error).message})`);
    }
    return lenses;
  });

  documents.listen(connection);
}
