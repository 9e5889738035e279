export const PANEL_KINDS: string[];
export function buildWebviews(outdir: string, options?: { minify?: boolean; sourcemap?: boolean }): Promise<void>;
