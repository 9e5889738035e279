// The environment folders in a bundle. Run from source, src/core/envs/discovered-info.ts and
// discovered-code.ts read their directory at run time (envs/load-folders.ts); a bundle cannot, so
// this plugin replaces those two modules with static imports of the folders found at build time,
// by the same rule (a subfolder holding the marker file, sorted by name) and the same file list
// (envs/folder-convention.json). Every esbuild build that bundles src/core uses it.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const DISCOVERED = /[\\/]core[\\/]envs[\\/]discovered-(info|code)\.ts$/;
const PARTS = { info: "light", code: "code" };

/** The environment folders under `envsDir` and, per part, the convention's files each holds. */
export function environmentFolders(envsDir) {
  const convention = JSON.parse(readFileSync(path.join(envsDir, "folder-convention.json"), "utf8"));
  const marker = `${convention.light.find((f) => f.required).file}.ts`;
  const folders = readdirSync(envsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(envsDir, d.name, marker)))
    .map((d) => d.name)
    .sort();
  if (folders.length === 0) throw new Error(`${envsDir}: no environment folder (a subfolder with ${marker})`);
  const files = (part, folder) =>
    convention[part].map((f) => f.file).filter((file) => existsSync(path.join(envsDir, folder, `${file}.ts`)));
  return folders.map((folder) => ({ folder, light: files("light", folder), code: files("code", folder) }));
}

/** The module text that stands in for discovered-<which>.ts: what loadFolders returns, built from static imports. */
function discoveredModule(envsDir, which) {
  const part = PARTS[which];
  const exportName = which === "info" ? "LIGHT_FOLDERS" : "CODE_FOLDERS";
  const imports = [];
  const entries = environmentFolders(envsDir).map((f, i) => {
    const modules = f[part].map((file, j) => {
      imports.push(`import * as m${i}_${j} from ${JSON.stringify(`./${f.folder}/${file}`)};`);
      return `${JSON.stringify(file)}: m${i}_${j}`;
    });
    return `{ folder: ${JSON.stringify(f.folder)}, modules: { ${modules.join(", ")} } }`;
  });
  return `${imports.join("\n")}\nexport const ${exportName} = [\n  ${entries.join(",\n  ")}\n];\n`;
}

export function envFoldersPlugin() {
  return {
    name: "agent-lab-env-folders",
    setup(build) {
      build.onLoad({ filter: DISCOVERED }, (args) => {
        const envsDir = path.dirname(args.path);
        const which = DISCOVERED.exec(args.path)[1];
        return {
          contents: discoveredModule(envsDir, which),
          loader: "ts",
          resolveDir: envsDir,
          // A folder added or removed while watching changes the module.
          watchDirs: [envsDir],
        };
      });
    },
  };
}
