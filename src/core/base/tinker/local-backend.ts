/**
 * How core starts the local Tinker-compatible backend without importing it: the steps that run
 * against it (the pipeline, an experiment) take a `StartLocalBackend` from their caller, and the
 * CLI passes the server's own start-or-reuse (src/server/reuse.ts). Core stays below the server.
 */

/** A local backend this process started or found listening. */
export interface LocalBackendHandle {
  url: string;
  /** True when this call started the server (close() stops it once idle); false when it reused one. */
  started: boolean;
  close(): Promise<void>;
}

/** Starts a local backend in `dir` on `port` (0: any free port), or reuses one listening there. */
export type StartLocalBackend = (o: { port: number; dir: string; seed: number }) => Promise<LocalBackendHandle>;

/** The starter a step was given, or the one-line refusal for a caller that forgot it. */
export function requireLocalBackend(start: StartLocalBackend | undefined, step: string): StartLocalBackend {
  if (!start)
    throw new Error(
      `${step} with --backend local needs a StartLocalBackend from its caller (the CLI passes the server's)`,
    );
  return start;
}

/**
 * The process title of a CLI process serving the local backend (what `ps` and /proc/PID/cmdline
 * show for it). A remote VS Code (SSH, containers, code-server) scans /proc for processes listening
 * on localhost and offers each new one for forwarding ("Open in Browser", the Ports view) unless a
 * `remote.portsAttributes` entry, whose keys may be regular expressions over that command line,
 * says "ignore". The backend is an API for the steps, not a page: the extension contributes
 * LOCAL_BACKEND_PORTS_ATTRIBUTE as a default of that setting (package.json configurationDefaults),
 * and the title makes every backend process match it, whichever step or terminal started it and
 * on whatever port.
 */
export const LOCAL_BACKEND_PROCESS_TITLE = "agent-lab local backend";

/** The `remote.portsAttributes` key (a regular expression over a process's command line) that matches LOCAL_BACKEND_PROCESS_TITLE. */
export const LOCAL_BACKEND_PORTS_ATTRIBUTE = "^agent-lab local backend";
