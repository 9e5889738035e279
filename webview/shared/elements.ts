/** The @vscode-elements components the panels use, bundled into each panel script (nothing remote). */
import "@vscode-elements/elements/dist/vscode-button/index.js";
import "@vscode-elements/elements/dist/vscode-checkbox/index.js";
