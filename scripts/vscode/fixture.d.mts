// Types for fixture.mjs, for the TypeScript scripts that import it.
export const FIXTURE: { evalRuns: string[]; sftData: string; training: string; checkpoints: string[] };
export const SHOT_EXTRAS: { grpo: string; promptRun: string; promptFile: string; cookbook: string; experiment: string };
export function makeFixtureWorkspace(options?: { log?: (message: string) => void }): { dir: string; remove(): void };
