/**
 * The worker's own defences, applied inside the sandbox child before Pyodide loads (the second of
 * three layers; see sandbox.ts). Node's permission model (layer one, set on the command line)
 * covers files, child processes and workers but not the network, not signals to other processes and
 * not memory outside the JS heap, so this module closes those in the child's own realm:
 * every connect/listen/lookup path of net, tls, dns, http(s), http2 and dgram, fetch and WebSocket,
 * child_process/worker_threads/cluster/inspector (again), process.kill and native addons, host facts
 * (os.userInfo, hostname, interfaces) and WebAssembly memory beyond the per-task cap. A blocked call
 * throws and is reported through `onViolation`, so the task is rejected even if its code catches it.
 *
 * This runs only in the child: importing it anywhere else would disable networking in that process.
 */
import * as childProcess from "node:child_process";
import * as cluster from "node:cluster";
import * as dgram from "node:dgram";
import * as dns from "node:dns";
import * as fs from "node:fs";
import * as http from "node:http";
import * as http2 from "node:http2";
import * as https from "node:https";
import * as inspector from "node:inspector";
import { syncBuiltinESMExports } from "node:module";
import * as net from "node:net";
import * as os from "node:os";
import * as tls from "node:tls";
import * as workerThreads from "node:worker_threads";

export type ViolationKind = "network" | "process" | "environment" | "host-bridge" | "memory";

export interface LockdownOptions {
  /** Most bytes any one WebAssembly memory may hold (Pyodide's heap is one). */
  wasmMemoryBytes: number;
  onViolation(kind: ViolationKind, what: string): void;
}

const WASM_PAGE = 65536;

export function lockDownNode(options: LockdownOptions): void {
  const poison = (kind: ViolationKind, what: string) =>
    function blocked(): never {
      options.onViolation(kind, what);
      throw new Error(`sandbox: ${what} is not allowed`);
    };
  const seal = (target: object, name: string, value: unknown) => {
    Object.defineProperty(target, name, { value, writable: false, configurable: false, enumerable: true });
  };
  const poisonAll = (kind: ViolationKind, prefix: string, target: object | undefined, names: string[]) => {
    if (!target) return;
    for (const name of names) if (name in target) seal(target, name, poison(kind, `${prefix}.${name}`));
  };
  // `import * as` namespaces are read-only views; the CommonJS export objects are what callers share.
  const cjs = <T extends object>(ns: T): Record<string, unknown> =>
    ((ns as { default?: object }).default ?? ns) as Record<string, unknown>;

  // Network: each way to open, accept or resolve a connection.
  const netM = cjs(net);
  poisonAll("network", "net", netM, ["connect", "createConnection", "createServer"]);
  poisonAll("network", "net.Socket", (netM.Socket as { prototype: object }).prototype, ["connect"]);
  poisonAll("network", "net.Server", (netM.Server as { prototype: object }).prototype, ["listen"]);
  poisonAll("network", "tls", cjs(tls), ["connect", "createServer", "createSecureContext"]);
  const dnsM = cjs(dns);
  const dnsCalls = [
    "lookup",
    "lookupService",
    "resolve",
    "resolve4",
    "resolve6",
    "resolveAny",
    "resolveCname",
    "resolveMx",
    "resolveNs",
    "resolvePtr",
    "resolveSrv",
    "resolveTxt",
    "resolveNaptr",
    "resolveSoa",
    "resolveCaa",
    "reverse",
  ];
  poisonAll("network", "dns", dnsM, dnsCalls);
  poisonAll("network", "dns.promises", dnsM.promises as object, dnsCalls);
  poisonAll("network", "dns.Resolver", (dnsM.Resolver as { prototype: object }).prototype, dnsCalls);
  for (const [name, m] of [
    ["http", http],
    ["https", https],
  ] as const) {
    const mod = cjs(m);
    poisonAll("network", name, mod, ["request", "get", "createServer"]);
    poisonAll("network", `${name}.Agent`, (mod.Agent as { prototype: object }).prototype, ["createConnection"]);
  }
  poisonAll("network", "http2", cjs(http2), ["connect", "createServer", "createSecureServer"]);
  poisonAll("network", "dgram", cjs(dgram), ["createSocket"]);
  for (const name of ["fetch", "WebSocket", "EventSource", "XMLHttpRequest"]) {
    if (name in globalThis) seal(globalThis, name, poison("network", name));
  }

  // Processes, threads and the debugger (the permission model denies most of these too).
  poisonAll("process", "child_process", cjs(childProcess), [
    "spawn",
    "spawnSync",
    "exec",
    "execSync",
    "execFile",
    "execFileSync",
    "fork",
  ]);
  poisonAll("process", "worker_threads", cjs(workerThreads), ["Worker"]);
  poisonAll("process", "cluster", cjs(cluster), ["fork", "setupPrimary", "setupMaster"]);
  poisonAll("host-bridge", "inspector", cjs(inspector), ["open", "Session", "url", "waitForDebugger"]);
  poisonAll("process", "process", process, [
    "kill",
    "dlopen",
    "_linkedBinding",
    "_debugProcess",
    "setuid",
    "setgid",
    "seteuid",
    "setegid",
    "setgroups",
    "initgroups",
  ]);
  // Pyodide's file-system layer asks the deprecated process.binding for open() flags, which the
  // permission model refuses; answer that one question and no other.
  const fsConstants = fs.constants;
  seal(process, "binding", (name: string) => {
    if (name === "constants") return { fs: fsConstants, os: os.constants };
    options.onViolation("host-bridge", `process.binding(${String(name).slice(0, 40)})`);
    throw new Error("sandbox: process.binding is not allowed");
  });

  // Host facts: the parent already passes an empty environment; freeze it so nothing can be put back.
  seal(process, "env", Object.freeze(Object.create(null)));
  poisonAll("environment", "os", cjs(os), [
    "userInfo",
    "hostname",
    "networkInterfaces",
    "homedir",
    "setPriority",
    "getPriority",
  ]);

  syncBuiltinESMExports();
  capWasmMemory(options);
}

/** Clamps every WebAssembly memory of this realm, so a runaway allocation fails inside Python as MemoryError. */
function capWasmMemory(options: LockdownOptions): void {
  const limitPages = Math.floor(options.wasmMemoryBytes / WASM_PAGE);
  const Memory = WebAssembly.Memory;
  const grow = Memory.prototype.grow;
  Object.defineProperty(Memory.prototype, "grow", {
    value: function cappedGrow(this: WebAssembly.Memory, delta: number): number {
      if (this.buffer.byteLength / WASM_PAGE + delta > limitPages) {
        options.onViolation("memory", `WebAssembly memory over ${options.wasmMemoryBytes} bytes`);
        throw new RangeError("sandbox: memory limit");
      }
      return grow.call(this, delta);
    },
    writable: false,
    configurable: false,
  });
  // A new memory object is the other way to ask for wasm memory.
  const capped = function CappedMemory(descriptor: WebAssembly.MemoryDescriptor): WebAssembly.Memory {
    if (descriptor.initial > limitPages) {
      options.onViolation("memory", `WebAssembly memory of ${descriptor.initial} pages`);
      throw new RangeError("sandbox: memory limit");
    }
    const maximum = Math.min(descriptor.maximum ?? limitPages, limitPages);
    return new Memory({ ...descriptor, maximum });
  };
  capped.prototype = Memory.prototype;
  Object.defineProperty(WebAssembly, "Memory", { value: capped, writable: false, configurable: false });
}
