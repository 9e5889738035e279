/**
 * Every command registered against a lab whose job launcher only records what it was asked to
 * start (no process spawned), with the recorded vscode stand-in reset for the next test. The
 * caller installs the stand-in (installFakeVscode) before requiring this module.
 */
import { recorded } from "./fake-vscode";
import type { JobRequest } from "../../../src/extension/jobs/job-runner";
/* eslint-disable @typescript-eslint/no-require-imports */
const { registerCommands } =
  require("../../../src/extension/register-commands") as typeof import("../../../src/extension/register-commands");
const { LabWorkspace } =
  require("../../../src/extension/workspace/lab-workspace") as typeof import("../../../src/extension/workspace/lab-workspace");
const { RunsProvider } =
  require("../../../src/extension/runs/runs-provider") as typeof import("../../../src/extension/runs/runs-provider");
const { CheckpointsProvider } =
  require("../../../src/extension/checkpoints/checkpoints-provider") as typeof import("../../../src/extension/checkpoints/checkpoints-provider");
const { ExperimentsProvider } =
  require("../../../src/extension/experiments/experiments-provider") as typeof import("../../../src/extension/experiments/experiments-provider");
const { CheckpointsSidebar } =
  require("../../../src/extension/checkpoints/checkpoints-sidebar") as typeof import("../../../src/extension/checkpoints/checkpoints-sidebar");
/* eslint-enable @typescript-eslint/no-require-imports */

export interface RecordingLab {
  /** The jobs the commands asked for, in order. */
  started: JobRequest[];
  /** The lab the commands were registered against. */
  lab: import("../../../src/extension/commands/lab").Lab;
  /** Unregisters the commands and clears the test's answers. */
  dispose(): void;
}

/** Call in beforeEach: a fresh workspace view of `ws` and freshly registered commands. */
export function recordingLab(ws: string, settings: Record<string, unknown> = {}): RecordingLab {
  recorded.workspaceFolder = ws;
  recorded.settings = settings;
  recorded.messages.length = 0;
  recorded.inputsShown.length = 0;
  recorded.registeredCommands.clear();
  const started: JobRequest[] = [];
  const workspace = new LabWorkspace();
  const jobs = {
    start: async (req: JobRequest) => {
      started.push(req);
      return { record: { id: "x", run_dir: req.runDir }, finished: new Promise(() => {}) };
    },
    list: () => [],
    running: () => [],
    liveRunDirs: () => new Set<string>(),
  };
  const lab = {
    context: { asAbsolutePath: (p: string) => p },
    workspace,
    keys: {},
    jobs,
    runs: new RunsProvider(workspace, () => new Set()),
    checkpoints: new CheckpointsProvider(workspace),
    experiments: new ExperimentsProvider(workspace),
    checkpointsSidebar: new CheckpointsSidebar({} as never, workspace),
  };
  const disposables = registerCommands(lab as never);
  return {
    started,
    lab: lab as never,
    dispose() {
      for (const d of disposables) d.dispose();
      recorded.pick = recorded.input = recorded.answer = recorded.open = undefined;
      recorded.workspaceFolder = undefined;
    },
  };
}
