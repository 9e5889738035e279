/**
 * A stand-in for a vscode.WebviewPanel, enough for the panels' glue (src/extension/panels) to run
 * in plain Node: the HTML set, the messages posted, listeners the test fires (a message from the
 * page, the panel shown or hidden), and whether it is visible.
 */
import { PROTOCOL_VERSION, type HostMessage } from "../../../src/extension/webview/protocol";

type Listener = (e: unknown) => void;

export function fakePanel(visible: boolean) {
  const listeners = { message: [] as Listener[], dispose: [] as Listener[], view: [] as Listener[] };
  const state = { html: [] as string[], optionsSet: 0, visible, posted: [] as HostMessage[] };
  const webview = {
    cspSource: "https://webview.test",
    postMessage: async (m: HostMessage) => (state.posted.push(m), true),
    onDidReceiveMessage: (l: Listener) => (listeners.message.push(l), { dispose() {} }),
    set html(v: string) {
      state.html.push(v);
    },
    set options(_v: unknown) {
      state.optionsSet++;
    },
  };
  const panel = {
    webview,
    title: "",
    get visible() {
      return state.visible;
    },
    onDidDispose: (l: Listener) => (listeners.dispose.push(l), { dispose() {} }),
    onDidChangeViewState: (l: Listener) => (listeners.view.push(l), { dispose() {} }),
    reveal() {},
    dispose() {},
  };
  /** A message from the page (its protocol version added). */
  const fromPage = (body: Record<string, unknown>) =>
    listeners.message.forEach((l) => l({ v: PROTOCOL_VERSION, ...body }));
  return { panel, state, listeners, fromPage };
}

export const fakeContext = { extensionUri: { fsPath: "/ext" } };
