// Shared by the integration runner, the screenshot script and the .vsix install check: start the
// real VS Code server (the code-server npm package installed by scripts/vscode/setup.sh) on a free
// loopback port with throw-away user-data and extension folders, and drive its web workbench with
// Debian's Chromium through playwright-core. Everything is served from 127.0.0.1: it works offline.
// Approach adapted from the team's shared vscode-integration example.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { useWebviewWorker } from "./webview-worker.mjs";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const hostDir = path.join(root, "vscode-host");
export const codeServerDir = path.join(hostDir, "node_modules", "code-server");
export const codeServerEntry = path.join(codeServerDir, "out", "node", "entry.js");
export const chromiumPath = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

/**
 * What is missing to run VS Code here, as one line a person can act on, or null when all is there.
 * Callers print it instead of a stack trace.
 */
export function missingPrerequisite() {
  if (!existsSync(chromiumPath)) {
    return `Chromium not found at ${chromiumPath}: install it (Debian/Ubuntu: apt-get install chromium ripgrep libkrb5-dev, then npm run setup:vscode) or set CHROMIUM_PATH`;
  }
  if (!existsSync(codeServerEntry)) {
    return "VS Code (code-server 4.100.3) is not installed in vscode-host/: run npm run setup:vscode";
  }
  try {
    // playwright-core is a devDependency of the main package; a production-only install lacks it.
    import.meta.resolve("playwright-core");
  } catch {
    return "playwright-core is not installed: run npm ci (dev dependencies included)";
  }
  return null;
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** Settings that keep the workbench quiet, offline and predictable for tests and screenshots. */
const QUIET_SETTINGS = {
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "security.workspace.trust.enabled": false,
  "git.enabled": false, // the builtin git extension's scanning would only cost time here
  "chat.commandCenter.enabled": false,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "remote.autoForwardPorts": false, // no "your application on port N is available" toasts for the local backend
};

/**
 * Starts code-server. `env` is added to the server's environment, which the extension host
 * inherits: the suite reads its fixture paths from there.
 * `extensionsDir` lets the .vsix check install an extension before the server starts.
 * `webviewWorker`: "fixed" (later VS Code's webview service-worker URL) or "as-shipped"
 * (VS Code 1.100's); see webview-worker.mjs.
 */
export async function startCodeServer({ settings = {}, env = {}, extensionsDir, webviewWorker = "fixed" } = {}) {
  useWebviewWorker(codeServerDir, webviewWorker);
  const tmp = mkdtempSync(path.join(tmpdir(), "agent-lab-vscode-"));
  const data = path.join(tmp, "data");
  const ext = extensionsDir ?? path.join(tmp, "ext");
  mkdirSync(path.join(data, "User"), { recursive: true });
  mkdirSync(ext, { recursive: true });
  writeFileSync(path.join(data, "User", "settings.json"), JSON.stringify({ ...QUIET_SETTINGS, ...settings }, null, 2));
  const configFile = path.join(tmp, "config.yaml");
  writeFileSync(configFile, "auth: none\n"); // otherwise code-server writes ~/.config/code-server/config.yaml
  const port = await freePort();
  const t0 = Date.now();
  const proc = spawn(
    process.execPath,
    [
      codeServerEntry,
      "--config",
      configFile,
      "--auth",
      "none",
      "--bind-addr",
      `127.0.0.1:${port}`,
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--disable-getting-started-override",
      "--ignore-last-opened",
      "--user-data-dir",
      data,
      "--extensions-dir",
      ext,
    ],
    {
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // own process group: the extension host and its job children stop with it
      // EXTENSIONS_GALLERY='{}' removes the (unreachable) extension gallery from the product config.
      // AGENT_LAB_IT_USER_DATA: tests check that secrets never reach the user settings or logs.
      env: {
        ...process.env,
        XDG_CONFIG_HOME: tmp,
        XDG_DATA_HOME: tmp,
        EXTENSIONS_GALLERY: "{}",
        AGENT_LAB_IT_USER_DATA: data,
        ...env,
      },
    },
  );
  let log = "";
  proc.stdout.on("data", (d) => {
    log += d;
  });
  proc.stderr.on("data", (d) => {
    log += d;
  });
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("code-server did not start within 60 s:\n" + log)), 60_000);
    const check = () => {
      if (log.includes("HTTP server listening")) {
        clearTimeout(timer);
        resolve();
      }
    };
    proc.stdout.on("data", check);
    proc.stderr.on("data", check);
    proc.once("exit", (c) => {
      clearTimeout(timer);
      reject(new Error(`code-server exited with ${c}:\n${log}`));
    });
  });
  return {
    port,
    tmp,
    userDataDir: data,
    extensionsDir: ext,
    startedMs: Date.now() - t0,
    get log() {
      return log;
    },
    // code-server's remote authority is literally "remote".
    remoteUri: (p) => `vscode-remote://remote${p}`,
    url({ folder, payload }) {
      let u = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}`;
      if (payload) u += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
      return u;
    },
    stop() {
      try {
        process.kill(-proc.pid, "SIGTERM");
      } catch {
        proc.kill("SIGTERM");
      }
      if (!process.env.KEEP_TMP) rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** Runs code-server's CLI once (e.g. --install-extension) and resolves with its output. */
export function codeServerCli(args, { extensionsDir, userDataDir }) {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      [codeServerEntry, "--extensions-dir", extensionsDir, "--user-data-dir", userDataDir, ...args],
      {
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, EXTENSIONS_GALLERY: "{}" },
      },
    );
    let out = "";
    proc.stdout.on("data", (d) => {
      out += d;
    });
    proc.stderr.on("data", (d) => {
      out += d;
    });
    proc.once("error", reject);
    proc.once("exit", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`code-server ${args.join(" ")} exited ${code}:\n${out}`)),
    );
  });
}

export async function launchChromium() {
  const { chromium } = await import("playwright-core");
  // playwright adds --headless and its own temporary --user-data-dir.
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

// Workbench lines that the log hook forwards besides the tests' own output; hidden unless VSCODE_LOG=1.
const NOISE =
  /^(Creating a socket|Resolving connection token|Resolved connection token|Ignoring fetching additional builtin|\[Service Worker\]|ChatSessionStore|Updating additional builtin extensions cache|Creation of workbench contribution|\[Extension Host\] \(node:\d+\) \[DEP0)/;

/**
 * Opens `folder` in the workbench with `devPath` as the extension under development and runs the
 * extension-tests entry `testsPath` (a module exporting run()) inside the extension host.
 * Resolves with { exitCode, result } where result is the suite's AGENT_LAB_IT_RESULT summary
 * (undefined when the suite never reported).
 */
export async function runExtensionTests({ cs, browser, folder, devPath, testsPath, timeoutMs }) {
  const { format } = await import("node:util");
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  if (process.env.VSCODE_DEBUG) page.on("console", (m) => console.log(`[browser:${m.type()}] ${m.text()}`));
  let result;
  // The web workbench reports an extension-test run through these two hooks (VS Code's own browser
  // integration harness uses them): every log line of the run, then the exit code.
  const exited = new Promise((resolve) => {
    page.exposeFunction("codeAutomationLog", (_type, logArgs) => {
      const text = format(...(Array.isArray(logArgs) ? logArgs : [logArgs]));
      if (text.startsWith("AGENT_LAB_IT_RESULT ")) {
        result = JSON.parse(text.slice("AGENT_LAB_IT_RESULT ".length));
        return;
      }
      if (!process.env.VSCODE_LOG && NOISE.test(text)) return;
      console.log(text);
    });
    page.exposeFunction("codeAutomationExit", (code) => resolve(code));
  });
  await page.goto(
    cs.url({
      folder,
      payload: [
        ["extensionDevelopmentPath", cs.remoteUri(devPath)],
        ["extensionTestsPath", cs.remoteUri(testsPath)],
        ["skipWelcome", "true"],
        ["skipReleaseNotes", "true"],
      ],
    }),
  );
  let timer;
  const outcome = await Promise.race([
    exited,
    new Promise((r) => {
      timer = setTimeout(() => r("timeout"), timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  // Closing the window ends its extension host, so a next session starts with a fresh one.
  await page.close().catch(() => {});
  if (outcome === "timeout") {
    console.error(`[vscode] no result after ${timeoutMs} ms. VS Code server log:\n${cs.log}`);
    return { exitCode: 1, result };
  }
  return { exitCode: Number(outcome), result };
}
