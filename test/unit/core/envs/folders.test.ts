/** The folder convention: which subfolders are environments, and what a missing file or export says. */
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { folderExport, FOLDER_FILES } from "../../../../src/core/envs/folders";
import { environmentFolders, loadFolders } from "../../../../src/core/envs/load-folders";
import { REPO } from "../../../helpers/repo";

describe("envs/folders: an environment is a folder", () => {
  let dir: string;
  before(() => {
    mkdirSync(join(REPO, ".cache"), { recursive: true });
    dir = mkdtempSync(join(REPO, ".cache", "env-folders-"));
    const file = (path: string, text: string) => {
      mkdirSync(join(dir, path, ".."), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    file("zeta/info.ts", 'export const INFO = { name: "zeta" };\n');
    file("zeta/environment.ts", 'export const ENVIRONMENT = { name: "zeta" };\n');
    file("alpha/info.ts", "export const NOT_INFO = 1;\n");
    file("notes/readme.md", "no info.ts: not an environment\n");
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  it("the subfolders holding an info.ts, by name", () => {
    assert.deepEqual(environmentFolders(dir), ["alpha", "zeta"]);
  });

  it("loads each part's files; an absent optional file is undefined, a missing required file or export is named", () => {
    const [alpha, zeta] = loadFolders(dir, "light");
    assert.deepEqual(folderExport(zeta, "light", "info"), { name: "zeta" });
    assert.equal(folderExport(zeta, "light", "world-info"), undefined);
    assert.throws(() => folderExport(alpha, "light", "info"), /envs\/alpha\/info\.ts must export INFO/);
    const code = loadFolders(dir, "code");
    assert.deepEqual(folderExport(code[1], "code", "environment"), { name: "zeta" });
    assert.throws(() => folderExport(code[0], "code", "environment"), /envs\/alpha\/environment\.ts is missing/);
  });

  it("a directory without environments is refused (a bundle built without the plugin)", () => {
    assert.throws(() => loadFolders(join(dir, "notes"), "light"), /no environment folder/);
  });

  it("the light part is what the extension may load at activation: info files only", () => {
    assert.deepEqual(
      FOLDER_FILES.light.map((f) => f.file),
      ["info", "world-info"],
    );
  });
});
