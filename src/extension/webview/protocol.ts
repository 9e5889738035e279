/**
 * The typed messages between the extension and its webviews — the only channel between them
 * (webviews never read files). Both sides import this module (it imports no `vscode` and no Node),
 * and every message carries the protocol version: a webview bundle from another build is refused
 * with a visible error instead of misreading fields.
 */
import type { CompareOrigin } from "../../core/steps/ablate/compare-origin";
import type { CompareSetup } from "../../core/steps/ablate/compare-setup";
import type { AblationReport } from "../../core/steps/ablate/report-types";
import type { PairView } from "../../core/views/trace/pair-view";
import type { ExperimentProgressView, ExperimentView } from "../../core/views/experiments/view-model";
import type { DriftReport, RunDriftCounts } from "../../core/views/trace/drift";
import type { DashboardView, GroupRecord } from "../../core/views/trace/dashboard-view";
import type { EpisodeColumns, EpisodeRow } from "../../core/views/trace/episode-list";
import type { GoldInResultsCounts } from "../../core/views/trace/gold-in-results";
import type { TraceEpisodeView } from "../../core/views/trace/trace-view";
import type { RunViewSpec } from "../../core/views/trace/run-view";
import type { TableFormat, TextTable } from "../../core/base/util/table-text";
import type { FailureComparison } from "../../core/views/failures/compare-failures";
import type { CheckpointsSidebarView } from "../../core/views/checkpoints/sidebar-view";
import type { PlaygroundReply, PlaygroundRequest } from "../../core/views/playground/protocol";
import { PANELS, type PanelKind } from "./panels";

export const PROTOCOL_VERSION = 2;

export type { PanelKind };

/** A run's failure labels for the trace viewer: the labels with their counts, largest first, and each failed episode's verdict. */
export type { FailureComparison };

export interface TraceFailures {
  labels: { label: string; description: string; count: number }[];
  byId: Record<string, { label: string; subLabel?: string; evidence: string }>;
}

/**
 * Internal command (not in the palette) that integration tests and the screenshot script use to
 * read a panel's DOM: (kind, selectors[], click?) → { results, pwned } from the newest open panel of
 * that kind (`click`: a selector whose first match is clicked before the DOM is read).
 */
export const PROBE_PANEL_COMMAND = "agentLab._probePanel";

/**
 * Internal command (not in the palette) for the panel bench: opens a webview as the panels are
 * opened but with one inline script and nothing else, and returns when its script started and
 * its first frame (Date.now() in the page), then closes it: VS Code's own part of a new panel.
 */
export const REFERENCE_PANEL_COMMAND = "agentLab._referencePanel";

/** Internal command like PROBE_PANEL_COMMAND for the Checkpoints sidebar (a webview view): (selectors[], click?). */
export const PROBE_VIEW_COMMAND = "agentLab._probeView";

/** Each panel kind's webview view type, from the one table (panels.json); pure, so the webview bundles, which use only the types here, drop it. */
export const PANEL_VIEW_TYPES = /* @__PURE__ */ Object.fromEntries(PANELS.map((p) => [p.kind, p.viewType])) as Record<
  PanelKind,
  string
>;

/** What a panel remembers across a reload (webview state, read back by the serializer). */
export type PanelState =
  | { kind: "trace"; runDir: string; episodeId?: string }
  | {
      kind: "compare";
      runDirs: string[];
      /** How it was opened (presets the expected differences). */ origin?: CompareOrigin;
      /** Fields ticked as expected to differ. */ expect?: string[];
    }
  | { kind: "dashboard"; runDir: string; /** Training runs overlaid on the charts. */ overlays?: string[] }
  | { kind: "experiment"; recordDir: string }
  | {
      kind: "playground";
      /** The environment chatted in, and the checkpoint (absent: the base model). */
      env: string;
      checkpoint?: string;
      /** What the panel's title names (a checkpoint's name, or "base model"). */
      label: string;
    };

/**
 * The most rows a trace/run carries: a screenful many times over (the list draws the rows in
 * view), all of a 200-episode run, a few tens of KB; a longer list's rest follows in trace/rows.
 */
export const LIST_HEAD_ROWS = 200;

export interface TraceRunInfo {
  runDir: string;
  name: string;
  model?: string;
  split?: string;
  /**
   * The list's first rows (what its first frame shows); all of them when `total` is no more. The
   * rest follow in one trace/rows once the page has drawn its first frame: a 10,000-row list in
   * one message is most of a reused panel's open.
   */
  rows: EpisodeRow[];
  /**
   * How many rows the run's list has; null while the host has indexed only the first ones (a
   * long run: the run is posted again with its total, then its rest, after the first frame).
   */
  total: number | null;
  /** Null until the run's result text has been decoded (posted again when done). */
  gold: GoldInResultsCounts | null;
  tokenizerProblem?: string;
  /** The run's environment's metric labels and controls (core/views/trace/run-view.ts); absent: every control. */
  view?: RunViewSpec;
}

export interface GroupEpisodes {
  step: number;
  group: GroupRecord;
  episodes: TraceEpisodeView[];
}

/** Extension → webview. */
export type HostMessage =
  | { v: typeof PROTOCOL_VERSION; type: "state"; state: PanelState }
  /**
   * The panel is reused for another run (or set of runs): the webview forgets what it shows and
   * its frame marks (a reopen is timed like a first open); the new data follows.
   */
  | { v: typeof PROTOCOL_VERSION; type: "retarget"; state: PanelState }
  | { v: typeof PROTOCOL_VERSION; type: "trace/run"; run: TraceRunInfo }
  /** The rest of the list after the rows of the last trace/run: its rows `from` on, to the end. */
  | { v: typeof PROTOCOL_VERSION; type: "trace/rows"; runDir: string; from: number; rows: EpisodeColumns }
  /**
   * `preview`: built before the run's tokenizer was loaded (token ids, no text), so the episode is
   * drawn at once; the decoded episode follows as another trace/episode.
   */
  | { v: typeof PROTOCOL_VERSION; type: "trace/episode"; episode: TraceEpisodeView; buildMs: number; preview?: boolean }
  /** The drift check of an episode, sent after the episode itself (it re-encodes the whole chat). */
  | { v: typeof PROTOCOL_VERSION; type: "trace/drift"; episodeId: string; drift: DriftReport; ms: number }
  | { v: typeof PROTOCOL_VERSION; type: "trace/searchResult"; query: string; ids: string[] }
  /** Drift over the run's episodes so far (checked in the background after the gold pass). */
  | { v: typeof PROTOCOL_VERSION; type: "trace/driftCounts"; counts: RunDriftCounts; total: number }
  /** The run's failure labels (its environment's rules, computed when read): the list's label filter and the header's label. */
  | { v: typeof PROTOCOL_VERSION; type: "trace/failures"; runDir: string; failures: TraceFailures }
  /**
   * Ablate's report with only the rows the flip lists show (compare-shown.ts). `intervalsPending`:
   * the table before its intervals (CompareProgress: its intervals, sign-flip p, Holm-adjusted p's
   * and verdicts are not numbers yet); the whole report follows in another compare/report.
   */
  | {
      v: typeof PROTOCOL_VERSION;
      type: "compare/report";
      report: AblationReport;
      setup: CompareSetup;
      intervalsPending?: true;
    }
  /** The runs' failure labels compared (sent after the report; none when their environment declares no labels). */
  | { v: typeof PROTOCOL_VERSION; type: "compare/failures"; failures: FailureComparison }
  /** A flip's two episodes aligned turn by turn (the answer to compare/openPair). */
  | { v: typeof PROTOCOL_VERSION; type: "compare/pair"; pair: PairView }
  | { v: typeof PROTOCOL_VERSION; type: "dashboard/data"; data: DashboardView }
  | { v: typeof PROTOCOL_VERSION; type: "dashboard/group"; group: GroupEpisodes }
  | { v: typeof PROTOCOL_VERSION; type: "experiment/view"; view: ExperimentView }
  /** The experiment's progress while it runs (before its record exists, the panel shows only this). */
  | { v: typeof PROTOCOL_VERSION; type: "experiment/progress"; progress: ExperimentProgressView }
  /**
   * The Checkpoints sidebar's data; `evaluating`: checkpoints whose eval job is running;
   * `selected`: checkpoints picked to compare (ticked in the view, or Compare Selected in a tree).
   */
  | {
      v: typeof PROTOCOL_VERSION;
      type: "checkpoints/view";
      view: CheckpointsSidebarView;
      evaluating: string[];
      selected: string[];
    }
  /** What the playground's process answered (core/views/playground/protocol.ts), passed on as it came. */
  | { v: typeof PROTOCOL_VERSION; type: "playground/reply"; reply: PlaygroundReply }
  | { v: typeof PROTOCOL_VERSION; type: "error"; message: string }
  /** Asks the webview what its DOM holds (integration tests and screenshots read panels this way). */
  | {
      v: typeof PROTOCOL_VERSION;
      type: "probe";
      id: number;
      selectors: string[];
      /** Clicks the first element matching this selector first (integration tests drive a panel this way). */ click?: string;
    };

export type { CompareSetup };

/** Where a copied table goes. */
export type TableDestination = "clipboard" | "file";

/** What a probe found for one CSS selector. */
export interface ProbeResult {
  selector: string;
  count: number;
  /** Tokens the matched elements stand for (inserted-text pieces count their data-n). */
  tokens: number;
  /** The matched elements' text, joined with "\n" (first 4,000 characters). */
  text: string;
  /** How far the widest match's content runs past its box (scrollWidth − clientWidth, px): 0 when nothing is cut or scrolls. */
  overflowPx?: number;
  /** The page's width (window.innerWidth, px): what the panel had to fit into. */
  viewPx?: number;
  /** How many of them are on screen: within the viewport's height and wholly within its width (not cut off). */
  onScreen?: number;
}

/** Webview → extension. */
export type WebviewMessage =
  /**
   * `again`: the page has loaded and still has no data (a message posted before it was up did not
   * reach it): the panel posts its data again.
   */
  | { v: typeof PROTOCOL_VERSION; type: "ready"; again?: boolean }
  | { v: typeof PROTOCOL_VERSION; type: "trace/select"; episodeId: string }
  | { v: typeof PROTOCOL_VERSION; type: "trace/search"; query: string }
  | {
      v: typeof PROTOCOL_VERSION;
      type: "trace/rendered";
      episodeId: string;
      ms: number;
      spans: number;
      /** Date.now() at the first frame (same clock as the host's on one machine). */ at: number;
      /** Date.now() when the page's script started (an episode posted before it waited for the page). */ scriptAt: number;
    }
  | { v: typeof PROTOCOL_VERSION; type: "compare/openPair"; questionId: string; runs: [number, number] }
  /** The page has drawn a whole report (with its intervals): the host starts its failure labels then. */
  | { v: typeof PROTOCOL_VERSION; type: "compare/drawn" }
  /** Recomputes the comparison with these fields expected to differ. */
  | { v: typeof PROTOCOL_VERSION; type: "compare/setExpect"; expect: string[] }
  /** Opens one run's full trace viewer on a question (from the pair view). */
  | { v: typeof PROTOCOL_VERSION; type: "compare/openTrace"; questionId: string; run: number }
  | { v: typeof PROTOCOL_VERSION; type: "dashboard/openGroup"; index: number }
  /** Runs the Evaluate on Val command for one of the run's checkpoints (by name). */
  | { v: typeof PROTOCOL_VERSION; type: "dashboard/evaluate"; checkpoint: string }
  /** Asks the extension to pick another training run of the workspace to overlay on the charts. */
  | { v: typeof PROTOCOL_VERSION; type: "dashboard/addOverlay" }
  | { v: typeof PROTOCOL_VERSION; type: "dashboard/removeOverlay"; run: string }
  /** The Checkpoints sidebar: the Δ's baseline (an id of view.baselines). */
  | { v: typeof PROTOCOL_VERSION; type: "checkpoints/setBaseline"; baseline: string }
  /** Asks the extension to pick the training runs shown. */
  | { v: typeof PROTOCOL_VERSION; type: "checkpoints/chooseRuns" }
  /** Estimate, confirm, then evaluate on val every shown checkpoint without a matched eval. */
  | { v: typeof PROTOCOL_VERSION; type: "checkpoints/evaluateMissing" }
  /** Ticks (or unticks) checkpoints for Compare selected. */
  | { v: typeof PROTOCOL_VERSION; type: "checkpoints/select"; selected: string[] }
  /** Opens the Compare panel: "selected": on the ticked checkpoints' matched evals; "all": the baseline and every scored row. */
  | { v: typeof PROTOCOL_VERSION; type: "checkpoints/openCompare"; which: "selected" | "all" }
  /** Opens the run a number came from (one of the view's run folders, by index into `runs` of that number). */
  | { v: typeof PROTOCOL_VERSION; type: "experiment/openRun"; run: string }
  /** A playground request for its process (the panel checks its op before passing it on). */
  | { v: typeof PROTOCOL_VERSION; type: "playground/request"; request: PlaygroundRequest }
  /** Opens a saved playground episode's run in the trace viewer (the run the last save named). */
  | { v: typeof PROTOCOL_VERSION; type: "playground/openSaved" }
  | { v: typeof PROTOCOL_VERSION; type: "export"; format: "svg" | "png"; name: string; data: string }
  /** A table the panel shows, as text: onto the clipboard, or into a file the user picks (Save As…). */
  | {
      v: typeof PROTOCOL_VERSION;
      type: "table/export";
      table: TextTable;
      format: TableFormat;
      to: TableDestination;
    }
  | {
      v: typeof PROTOCOL_VERSION;
      type: "probeResult";
      id: number;
      results: ProbeResult[];
      pwned: boolean;
      timings: Record<string, number>;
    };

type Body<M> = M extends { v: number } ? Omit<M, "v"> : never;

export function hostMessage(body: Body<HostMessage>): HostMessage {
  return { v: PROTOCOL_VERSION, ...body } as HostMessage;
}

export function webviewMessage(body: Body<WebviewMessage>): WebviewMessage {
  return { v: PROTOCOL_VERSION, ...body } as WebviewMessage;
}

const WEBVIEW_TYPES = new Set<WebviewMessage["type"]>([
  "ready",
  "trace/select",
  "trace/search",
  "trace/rendered",
  "compare/openPair",
  "compare/drawn",
  "compare/setExpect",
  "compare/openTrace",
  "dashboard/openGroup",
  "dashboard/evaluate",
  "dashboard/addOverlay",
  "dashboard/removeOverlay",
  "experiment/openRun",
  "checkpoints/setBaseline",
  "checkpoints/chooseRuns",
  "checkpoints/evaluateMissing",
  "checkpoints/select",
  "checkpoints/openCompare",
  "playground/request",
  "playground/openSaved",
  "export",
  "table/export",
  "probeResult",
]);
const HOST_TYPES = new Set<HostMessage["type"]>([
  "state",
  "retarget",
  "trace/run",
  "trace/rows",
  "trace/episode",
  "trace/drift",
  "trace/searchResult",
  "trace/driftCounts",
  "trace/failures",
  "compare/report",
  "compare/failures",
  "compare/pair",
  "dashboard/data",
  "dashboard/group",
  "experiment/view",
  "experiment/progress",
  "checkpoints/view",
  "playground/reply",
  "error",
  "probe",
]);

export class ProtocolError extends Error {}

function check<T extends { v: number; type: string }>(raw: unknown, types: Set<string>, from: string): T {
  if (typeof raw !== "object" || raw === null) throw new ProtocolError(`${from} sent a message that is not an object`);
  const m = raw as { v?: unknown; type?: unknown };
  if (m.v !== PROTOCOL_VERSION) {
    throw new ProtocolError(
      `${from} speaks protocol version ${String(m.v)}, this side speaks ${PROTOCOL_VERSION}: reload the window after updating Agent Lab`,
    );
  }
  if (typeof m.type !== "string" || !types.has(m.type))
    throw new ProtocolError(`${from} sent an unknown message type ${JSON.stringify(m.type)}`);
  return raw as T;
}

/** Validates a message from a webview (version and type); throws ProtocolError otherwise. */
export function parseWebviewMessage(raw: unknown): WebviewMessage {
  return check<WebviewMessage>(raw, WEBVIEW_TYPES, "the webview");
}

/** Validates a message from the extension; throws ProtocolError otherwise. */
export function parseHostMessage(raw: unknown): HostMessage {
  return check<HostMessage>(raw, HOST_TYPES, "the extension");
}
