/**
 * A remote VS Code offers every new process listening on localhost for forwarding ("Open in Browser"
 * on port 8765, the Ports view filling up) unless `remote.portsAttributes` says to ignore it; keys
 * there may be regular expressions over the process's command line (/proc/PID/cmdline, tested as
 * VS Code does: RegExp(key).test(cmdline)). The extension contributes such a key as a default, and
 * every process serving the local backend titles itself to match it.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  LOCAL_BACKEND_PORTS_ATTRIBUTE,
  LOCAL_BACKEND_PROCESS_TITLE,
} from "../../../src/core/base/tinker/local-backend";
import { startLocalBackend } from "../../../src/cli/local-backend";
import { startCli, waitFor } from "../cli/cli-process";

const procCmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, "utf8");

describe("the local backend is not offered for port forwarding", function () {
  this.timeout(60_000);

  it("package.json contributes remote.portsAttributes' default: the backend's processes, ignored", () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, "../../../package.json"), "utf8")) as {
      contributes: { configurationDefaults?: Record<string, Record<string, { onAutoForward?: string }>> };
    };
    const attributes = pkg.contributes.configurationDefaults?.["remote.portsAttributes"];
    assert.equal(attributes?.[LOCAL_BACKEND_PORTS_ATTRIBUTE]?.onAutoForward, "ignore");
    assert.ok(new RegExp(LOCAL_BACKEND_PORTS_ATTRIBUTE).test(LOCAL_BACKEND_PROCESS_TITLE));
  });

  it("agent-lab serve-local's command line, as a remote VS Code reads it, matches the ignored key", async function () {
    if (!existsSync("/proc/self/cmdline")) this.skip(); // the remote side VS Code scans is Linux
    const dir = mkdtempSync(join(tmpdir(), "serve-local-title-"));
    try {
      const { child, done } = await startCli(["serve-local", "--port", "0", "--dir", dir]);
      let out = "";
      child.stdout!.on("data", (d) => (out += d));
      await waitFor(() => /listening on http:\/\/127\.0\.0\.1:\d+/.test(out), 30_000, "the listening line");
      const cmdline = procCmdline(child.pid!);
      child.kill("SIGTERM");
      await done;
      assert.ok(new RegExp(LOCAL_BACKEND_PORTS_ATTRIBUTE).test(cmdline), JSON.stringify(cmdline.slice(0, 80)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a step that starts the backend in its own process (pipeline, eval --backend local) titles itself too", async function () {
    if (!existsSync("/proc/self/cmdline")) this.skip();
    const dir = mkdtempSync(join(tmpdir(), "in-process-title-"));
    const before = process.title;
    try {
      const handle = await startLocalBackend({ port: 0, dir, seed: 0 });
      assert.equal(handle.started, true);
      assert.ok(new RegExp(LOCAL_BACKEND_PORTS_ATTRIBUTE).test(procCmdline(process.pid)));
      await handle.close();
    } finally {
      process.title = before;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
