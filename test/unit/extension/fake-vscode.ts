/**
 * A small stand-in for the `vscode` module, enough for the job runner's glue to run in plain Node:
 * event emitters, output channels, progress notifications and messages are recorded for asserts.
 * Install it (installFakeVscode) before the glue module is first required.
 */
import Module from "node:module";

type Listener<T> = (e: T) => void;

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  event = (l: Listener<T>) => {
    this.listeners.push(l);
    return { dispose: () => (this.listeners = this.listeners.filter((x) => x !== l)) };
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners = [];
  }
}

class TreeItem {
  [key: string]: unknown;
  constructor(
    public label: string,
    public collapsibleState = 0,
  ) {}
}
class ThemeIcon {
  constructor(
    public id: string,
    public color?: unknown,
  ) {}
}
class ThemeColor {
  constructor(public id: string) {}
}
class RelativePattern {
  constructor(
    public base: unknown,
    public pattern: string,
  ) {}
}
const disposable = () => ({ dispose: () => {} });
const uri = (fsPath: string) => ({ scheme: "file", fsPath, path: fsPath, toString: () => `file://${fsPath}` });

export interface Recorded {
  channels: Map<string, { text: string; shown: boolean }>;
  messages: { level: "info" | "warning" | "error"; text: string; actions: string[] }[];
  progress: { title: string; reports: { message?: string; increment?: number }[]; cancel: () => void; done: boolean }[];
  commands: { id: string; args: unknown[] }[];
  /** Answer the next message with this action (or undefined = dismissed). */
  answer?: (text: string, actions: string[]) => string | undefined;
  /** Answers quick picks: returns the item (or items) to pick, undefined = dismissed. */
  pick?: (
    items: { label: string; description?: string }[],
    options: { title?: string; placeHolder?: string },
  ) => unknown;
  /** Answers input boxes: the text typed (validated like VS Code would), undefined = dismissed. */
  input?: (options: { title?: string; prompt?: string; value?: string }) => string | undefined;
  inputsShown: { prompt?: string; value?: string; error?: string }[];
  /** Answers open dialogs: the paths chosen, undefined = cancelled. */
  open?: (options: {
    title?: string;
    filters?: Record<string, string[]>;
    canSelectMany?: boolean;
  }) => string[] | undefined;
}

export const recorded: Recorded & {
  registeredCommands: Map<string, (...a: unknown[]) => unknown>;
  treeProviders: Map<string, unknown>;
  /** Views registered with canSelectMany. */
  multiSelectViews: Set<string>;
  /** Webview views' providers by view id. */
  webviewViews: Map<string, unknown>;
  watchers: string[];
  workspaceFolder?: string;
  settings: Record<string, unknown>;
  /** workspace.isTrusted (default true). */
  untrusted?: boolean;
} = {
  channels: new Map(),
  messages: [],
  progress: [],
  commands: [],
  inputsShown: [],
  registeredCommands: new Map(),
  treeProviders: new Map(),
  multiSelectViews: new Set(),
  webviewViews: new Map(),
  watchers: [],
  settings: {},
};

function message(level: "info" | "warning" | "error") {
  return async (text: string, ...rest: unknown[]) => {
    const actions = rest.filter((a): a is string => typeof a === "string");
    recorded.messages.push({ level, text, actions });
    return recorded.answer?.(text, actions);
  };
}

export const fakeVscode = {
  EventEmitter,
  TreeItem,
  ThemeIcon,
  ThemeColor,
  RelativePattern,
  TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
  StatusBarAlignment: { Left: 1, Right: 2 },
  QuickPickItemKind: { Separator: -1, Default: 0 },
  ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
  Uri: {
    file: uri,
    joinPath: (base: { fsPath: string }, ...parts: string[]) => uri([base.fsPath, ...parts].join("/")),
  },
  workspace: {
    get isTrusted() {
      return !recorded.untrusted;
    },
    get workspaceFolders() {
      return recorded.workspaceFolder ? [{ uri: uri(recorded.workspaceFolder), name: "ws", index: 0 }] : undefined;
    },
    getConfiguration: () => ({
      get: (key: string) => recorded.settings[key],
      inspect: (key: string) => (key in recorded.settings ? { workspaceValue: recorded.settings[key] } : {}),
    }),
    createFileSystemWatcher(pattern: RelativePattern) {
      recorded.watchers.push(pattern.pattern);
      return { onDidCreate: disposable, onDidChange: disposable, onDidDelete: disposable, dispose: () => {} };
    },
    onDidChangeConfiguration: disposable,
    fs: { stat: async () => ({}) },
  },
  languages: { registerCodeLensProvider: disposable },
  ProgressLocation: { Notification: 15 },
  window: {
    createOutputChannel(name: string) {
      const ch = { text: "", shown: false };
      recorded.channels.set(name, ch);
      return {
        append: (t: string) => (ch.text += t),
        appendLine: (t: string) => (ch.text += t + "\n"),
        clear: () => (ch.text = ""),
        show: () => (ch.shown = true),
        dispose: () => {},
      };
    },
    showInformationMessage: message("info"),
    showWarningMessage: message("warning"),
    showErrorMessage: message("error"),
    async showOpenDialog(options: { title?: string; filters?: Record<string, string[]>; canSelectMany?: boolean }) {
      return recorded.open?.(options)?.map(uri);
    },
    async showQuickPick(
      items: { label: string; description?: string }[],
      options: { title?: string; placeHolder?: string } = {},
    ) {
      return recorded.pick?.(await items, options);
    },
    async showInputBox(options: {
      title?: string;
      prompt?: string;
      value?: string;
      validateInput?: (v: string) => string | undefined;
    }) {
      const text = recorded.input?.(options);
      const error = text === undefined ? undefined : (options.validateInput?.(text) ?? undefined);
      recorded.inputsShown.push({ prompt: options.prompt, value: options.value, error });
      // VS Code keeps a refused box open; the test's user then gives up (Escape).
      return error ? undefined : text;
    },
    createStatusBarItem: () => ({ show: () => {}, hide: () => {}, dispose: () => {} }),
    registerTreeDataProvider(id: string, provider: unknown) {
      recorded.treeProviders.set(id, provider);
      return { dispose: () => {} };
    },
    createTreeView(id: string, options: { treeDataProvider: unknown; canSelectMany?: boolean }) {
      recorded.treeProviders.set(id, options.treeDataProvider);
      if (options.canSelectMany) recorded.multiSelectViews.add(id);
      return { dispose: () => {} };
    },
    registerWebviewPanelSerializer: disposable,
    registerWebviewViewProvider(id: string, provider: unknown) {
      recorded.webviewViews.set(id, provider);
      return { dispose: () => {} };
    },
    async withProgress(
      options: { title: string },
      task: (
        p: { report: (r: { message?: string; increment?: number }) => void },
        token: { onCancellationRequested: (l: () => void) => void },
      ) => Promise<unknown>,
    ) {
      const entry = {
        title: options.title,
        reports: [] as { message?: string; increment?: number }[],
        cancel: () => {},
        done: false,
      };
      recorded.progress.push(entry);
      const token = { onCancellationRequested: (l: () => void) => void (entry.cancel = l) };
      // VS Code resolves withProgress to the task's own result.
      const result = await task({ report: (r) => entry.reports.push(r) }, token);
      entry.done = true;
      return result;
    },
  },
  commands: {
    registerCommand(id: string, fn: (...a: unknown[]) => unknown) {
      recorded.registeredCommands.set(id, fn);
      return { dispose: () => recorded.registeredCommands.delete(id) };
    },
    async executeCommand(id: string, ...args: unknown[]) {
      recorded.commands.push({ id, args });
    },
  },
};

let installed = false;
export function installFakeVscode(): void {
  if (installed) return;
  installed = true;
  const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const original = loader._load;
  loader._load = function (request: string, ...rest: unknown[]) {
    return request === "vscode" ? fakeVscode : original.call(this, request, ...rest);
  };
}
