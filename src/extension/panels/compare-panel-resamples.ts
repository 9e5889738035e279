/** Fewer resamples than the CLI's default keep the Compare panel quick; the CLI gives the archival numbers. (vscode-free: the panel bench reads it.) */
export const PANEL_RESAMPLES = 2000;
