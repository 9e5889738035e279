/**
 * Calls `then` once what this extension host has sent VS Code so far is on its way (a new panel,
 * its HTML). The host's side of VS Code's protocol does not write each message at once: it
 * buffers them and writes in a setTimeout(0) callback. A setImmediate callback can run before
 * that timer, and synchronous work in it (indexing a 10,000-episode run: 150 ms) then kept the
 * webview from being created until it ended. A timer of the same delay set later runs after the
 * protocol's (Node runs timers of one delay in the order they were set).
 */
export function afterSent(then: () => void): void {
  setTimeout(then, 0);
}
