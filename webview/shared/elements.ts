/** The @vscode-elements components the panels use, bundled into each panel script (nothing remote); host.ts evaluates them after the first frame. */
import "@vscode-elements/elements/dist/vscode-button/index.js";
import "@vscode-elements/elements/dist/vscode-checkbox/index.js";
