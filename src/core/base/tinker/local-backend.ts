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
