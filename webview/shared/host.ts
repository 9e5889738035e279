/**
 * The webview's end of the protocol: sends typed messages, checks the version of what arrives
 * (a mismatch shows an error instead of rendering fields it might misread), and keeps the panel
 * state VS Code hands back to the serializer after a reload.
 */
import {
  parseHostMessage,
  webviewMessage,
  type HostMessage,
  type PanelState,
  type ProbeResult,
  type WebviewMessage,
} from "../../src/extension/webview/protocol";
import { h } from "./dom";

interface VsCodeApi {
  postMessage(message: unknown): void;
  setState(state: unknown): void;
  getState(): unknown;
}

declare function acquireVsCodeApi(): VsCodeApi;

const api: VsCodeApi = acquireVsCodeApi();

type Body = Parameters<typeof webviewMessage>[0];

export function send(body: Body): void {
  api.postMessage(webviewMessage(body) satisfies WebviewMessage);
}

export function savedState(): PanelState | undefined {
  return api.getState() as PanelState | undefined;
}

/** Shows an error line at the top of the page (text only), in place of a "Loading…" the data it was about will not replace. */
export function showError(message: string): void {
  document.querySelector("#app > .loading")?.remove();
  let bar = document.getElementById("errors");
  if (!bar) {
    bar = h("div", { id: "errors", role: "alert", class: "errors" });
    document.body.prepend(bar);
  }
  bar.appendChild(h("div", { class: "error" }, message));
}

/**
 * Named durations a panel measured (ms), reported with every probe answer. Names ending in `At`
 * are wall-clock times (Date.now(), the clock the extension host shares on one machine), so a test
 * can measure from its command to a frame: `scriptAt` when the panel's script started, `elementsAt`
 * when its @vscode-elements controls were defined.
 */
export const timings: Record<string, number> = { scriptAt: Date.now() };

/** Records `name` (a wall-clock time) at the next frame, once: e.g. the first frame with the panel's data. */
export function markFirstFrame(name: string): void {
  if (name in timings) return;
  timings[name] = Number.NaN; // claimed: later calls before the frame do not reschedule
  requestAnimationFrame(() => {
    timings[name] = Date.now();
    setTimeout(loadElements);
  });
}

/** A panel that never draws data (an error, an empty page) still gets its controls. */
const ELEMENTS_AT_THE_LATEST_MS = 500;
let elements: Promise<void> | undefined;

/**
 * The @vscode-elements components (lit, their styles, their classes) are evaluated after the
 * panel's first frame with data rather than before the panel's first line: in a new panel they
 * pushed that frame back by 30–100 ms (one A/B run without them). The bundle holds them; esbuild's lazy module turns this
 * import into a call. Until they are defined the tags are plain elements: a button shows its
 * text and takes clicks, a checkbox is blank (isChecked reads its attribute); they upgrade in place.
 */
export function loadElements(): Promise<void> {
  elements ??= import("./elements").then(() => {
    timings.elementsAt = Date.now();
  });
  return elements;
}

/**
 * A panel reused for other data: frame marks start over (a reopen is timed from its own data's
 * frames), `retargetAt` records when the page heard of it.
 */
function startOver(): void {
  for (const k of Object.keys(timings)) if (k !== "scriptAt" && k !== "elementsAt") delete timings[k];
  timings.retargetAt = Date.now();
}

/** What a panel shows between a retarget and its new data (the page's own first placeholder). */
export function loadingLine(): HTMLElement {
  return h("p", { class: "loading" }, "Loading…");
}

function probe(selector: string): ProbeResult {
  const els = Array.from(document.querySelectorAll<HTMLElement>(selector));
  return {
    selector,
    count: els.length,
    tokens: els.reduce((n, el) => n + Number(el.dataset?.n ?? "1"), 0),
    text: els
      .map((el) => el.textContent ?? "")
      .join("\n")
      .slice(0, 4000),
    overflowPx: els.reduce((px, el) => Math.max(px, el.scrollWidth - el.clientWidth), 0),
    viewPx: window.innerWidth,
    onScreen: els.filter((el) => {
      const r = el.getBoundingClientRect();
      return r.bottom > 0 && r.top < window.innerHeight && r.left >= 0 && r.right <= window.innerWidth + 0.5;
    }).length,
  };
}

/** How long after the page's load event it waits for its first data before asking again. */
const ASK_AGAIN_MS = 2000;
let gotData = false;

/** Routes validated messages to `handle`; "state" and "error" are handled here, "retarget" here and there. */
export function listen(handle: (m: HostMessage) => void): void {
  window.addEventListener("message", (event: MessageEvent) => {
    let m: HostMessage;
    try {
      m = parseHostMessage(event.data);
    } catch (e) {
      showError((e as Error).message);
      return;
    }
    if (m.type === "state") api.setState(m.state);
    else if (m.type === "probe") {
      if (m.click) document.querySelector<HTMLElement>(m.click)?.click();
      send({
        type: "probeResult",
        id: m.id,
        results: m.selectors.map(probe),
        pwned: (window as unknown as { __pwned?: unknown }).__pwned !== undefined,
        timings,
      });
    } else if (m.type === "error") {
      // An answer too: asking again would only have the same error posted twice.
      gotData = true;
      showError(m.message);
    } else {
      if (m.type === "retarget") {
        api.setState(m.state);
        document.getElementById("errors")?.remove(); // they were about the data shown before
        startOver();
      }
      gotData = true;
      try {
        handle(m);
      } catch (e) {
        showError(`could not show this: ${(e as Error).message}`);
      }
    }
  });
  send({ type: "ready" });
  setTimeout(loadElements, ELEMENTS_AT_THE_LATEST_MS);
  // Data the extension posted before this page was up is queued for it by VS Code; should none
  // have arrived a while after the page loaded, ask again rather than stay on "Loading…".
  window.addEventListener(
    "load",
    () => setTimeout(() => gotData || send({ type: "ready", again: true }), ASK_AGAIN_MS),
    { once: true },
  );
}
