// How the project's Node programs are bundled: the entry points of dist/ (scripts/build.mjs), and
// what tests and benchmarks build to run code the way users run it. CommonJS for Node 20, every
// module in one file (one scope: an imported binding is a plain variable there, not a property read).
export const NODE_BUNDLE = Object.freeze({ bundle: true, platform: "node", target: "node20", format: "cjs" });

// Packages with native code or large model runtimes stay outside the bundle and load from node_modules.
export const NODE_EXTERNAL = Object.freeze(["vscode", "@huggingface/transformers", "onnxruntime-node", "sharp"]);
