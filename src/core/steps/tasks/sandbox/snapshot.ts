/**
 * Isolation by construction: every task starts from one memory snapshot of the interpreter, taken
 * in the worker once the guest setup has run. It is Pyodide's own memory snapshot (the whole
 * WebAssembly heap plus the JavaScript values its handle table points at, what
 * `makeMemorySnapshot`/`_loadSnapshot` save and load) restored into the running instance instead of
 * a new one: CPython's entire state lives in that heap, so nothing a task changed in Python (module
 * globals, a class's methods, a function's `__code__`, the recursion and int-digit limits, the
 * audit hook's helpers) is left for the next one. The JavaScript side of the file system keeps open
 * streams outside the heap; the ones a task left open are closed.
 *
 * Chosen by measurement (bench/sandbox/run.ts, before and after in one run, at load ~18 on 2
 * cores): restoring in place ran 58.6 and 45.0 tasks/s on one worker in two runs, faster than the
 * Python-level reset of module dicts it replaced (41.1 and 32.1), which also missed state outside
 * those dicts; the alternatives with the same guarantee cost seconds per task — loading Pyodide
 * from its snapshot into a new instance 0.5–0.6 tasks/s, a fresh worker per task 0.06–0.07 tasks/s.
 * Copying ~30 MiB back takes a few milliseconds.
 */

/** The parts of Pyodide's Emscripten module the snapshot reads and writes (internal, version-pinned API). */
export interface EmscriptenModule {
  HEAP8: Int8Array;
  __hiwire_get(index: number): unknown;
  __hiwire_set(index: number, value: unknown): number;
  FS: { streams: unknown[]; close(stream: unknown): void };
}

/** Heap growth past which a worker asks to be replaced rather than zero the extra memory before every task. */
export const RETIRE_GROWTH_BYTES = 64 * 2 ** 20;

export interface InterpreterSnapshot {
  /** Puts the interpreter back to the snapshot; returns how many bytes the heap has grown beyond it. */
  restore(): number;
  readonly bytes: number;
}

export function takeSnapshot(module: EmscriptenModule): InterpreterSnapshot {
  const heap = module.HEAP8.slice();
  const handles: unknown[] = [];
  for (let i = 0; ; i++) {
    let value: unknown;
    try {
      value = module.__hiwire_get(i);
    } catch (e) {
      // The handle table ends where reading throws (how Pyodide's own snapshot finds its end).
      void e;
      break;
    }
    handles.push(value);
  }
  const openStreams = new Set(module.FS.streams.map((s, fd) => (s ? fd : -1)).filter((fd) => fd >= 0));
  return {
    bytes: heap.length,
    restore(): number {
      const live = module.HEAP8; // a new view after the memory grew
      live.set(heap);
      if (live.length > heap.length) live.fill(0, heap.length);
      for (let i = 0; i < handles.length; i++) module.__hiwire_set(i, handles[i]);
      module.FS.streams.forEach((stream, fd) => {
        if (stream && !openStreams.has(fd)) module.FS.close(stream);
      });
      return live.length - heap.length;
    },
  };
}
