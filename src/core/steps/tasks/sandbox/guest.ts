/**
 * Python that the worker runs once after Pyodide loads (the third layer; see sandbox.ts). It cuts
 * the Python side of the bridge to JavaScript (the `js`, `pyodide_js`, `pyodide*` and `_pyodide*`
 * modules and the import hook that serves them), hides the environment, installs an audit hook
 * (a C-level hook Python code cannot remove) that blocks files outside the read-only standard
 * library, sockets, processes, ctypes, heap walks and rewrites of its own helpers, guards
 * `_imp.create_builtin`, and blanks the worker's command line. Its last expression is the runner the
 * worker calls per task. Each task starts from a memory snapshot the worker takes after this setup
 * (snapshot.ts), so nothing here restores state: what a task changes is gone for the next one.
 *
 * A blocked event is written to stderr as one marker line before the error is raised, so the
 * worker (which owns the stderr handler) records it even when the task's code catches the error;
 * if even that write fails, the interpreter exits and the host rejects the task as a crash.
 * Each runner result is "ok\0type\0repr" or "err\0reason\0detail".
 *
 * The guards keep what they rely on in default arguments, not closure cells or globals: a task
 * that reaches one guard function (the import blocker sits in sys.meta_path for all to see) cannot
 * rewrite another's tables through a shared cell, nor change its behaviour by patching builtins.
 */
export const VIOLATION_MARK = "\u0001agent-lab-sandbox-violation:";

export const GUEST_SETUP = String.raw`
def _agent_lab_sandbox():
    import _imp, builtins, os, posix, random, subprocess, sys, types
    from collections.abc import MutableMapping

    BRIDGE = ("js", "pyodide_js", "pyodide", "_pyodide", "_pyodide_core", "micropip", "ctypes", "_ctypes", "emscripten")
    PROCESS_MODULES = ("_posixsubprocess", "pty", "multiprocessing", "_multiprocessing")
    FS_EVENTS = frozenset({
        "os.listdir", "os.scandir", "os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.chmod", "os.chown",
        "os.link", "os.symlink", "os.truncate", "os.utime", "os.chdir", "os.chflags", "os.lchflags", "os.lchmod",
        "os.listxattr", "os.getxattr", "os.setxattr", "os.removexattr", "os.mkfifo", "os.mknod", "os.fwalk",
        "os.walk", "glob.glob", "glob.glob/2", "shutil.copyfile", "shutil.copymode", "shutil.copystat",
        "shutil.copytree", "shutil.move", "shutil.rmtree", "shutil.chown", "shutil.make_archive",
        "shutil.unpack_archive", "tempfile.mkstemp", "tempfile.mkdtemp", "pathlib.Path.glob", "pathlib.Path.rglob"})
    PROCESS_EVENTS = frozenset({
        "os.system", "os.exec", "os.spawn", "os.posix_spawn", "os.fork", "os.forkpty", "os.kill", "os.killpg",
        "os.startfile", "subprocess.Popen", "pty.spawn", "signal.pthread_kill", "os.popen"})
    PROCESS_PREFIXES = ("os.exec", "os.spawn", "os.posix_spawn")
    NETWORK_PREFIXES = ("socket.", "urllib.", "http.client.", "ftplib.", "smtplib.", "poplib.", "imaplib.",
                        "nntplib.", "telnetlib.", "webbrowser.", "ssl.")
    HOST_EVENTS = frozenset({
        "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys.settrace", "sys.setprofile",
        "sys._current_frames", "sys.addaudithook", "sys.monitoring.register_callback", "code.__new__",
        "function.__new__", "sys.remote_exec", "cpython.remove_audit_hook"})

    def report(kind, event, _mark=${JSON.stringify(VIOLATION_MARK)}, _write=os.write, _exit=os._exit, _base=BaseException):
        try:
            _write(2, (_mark + kind + ":" + event + "\n").encode())
        except _base:
            _exit(70)

    def blocked(kind, event, _report=report, _error=PermissionError):
        _report(kind, event)
        raise _error("sandbox: " + event + " is not allowed")

    def read_only_lib(path, mode, _fsdecode=os.fsdecode, _str=str, _bytes=bytes, _type=type, _base=BaseException):
        # Only a plain str or bytes: an object's __fspath__ would run the task's code inside the hook.
        if _type(path) is not _str and _type(path) is not _bytes:
            return False
        try:
            p = _fsdecode(path)
        except _base:
            return False
        if _type(p) is not _str or not p.startswith("/lib/") or ".." in p:
            return False
        m = _str(mode)
        return "w" not in m and "a" not in m and "x" not in m and "+" not in m

    def module_rule(name, _bridge=BRIDGE, _process=PROCESS_MODULES, _blocked=blocked, _str=str, _type=type):
        top = name.split(".")[0] if _type(name) is _str else ""
        if top in _bridge:
            _blocked("host-bridge", "import " + name)
        if top in _process:
            _blocked("process", "import " + name)

    class BridgeBlocker:
        """First in sys.meta_path: importlib.import_module raises no "import" audit event."""
        @staticmethod
        def find_spec(name, path=None, target=None, _module=module_rule):
            _module(name)
            return None

    class Environment(MutableMapping):
        """os.environ for tasks: empty, and any use of it is a recorded attempt."""
        def _deny(self, *args, _blocked=blocked):
            _blocked("environment", "os.environ")
        __getitem__ = __setitem__ = __delitem__ = __iter__ = __len__ = __contains__ = get = copy = __repr__ = _deny

    def process_guard(name, _blocked=blocked):
        def no_process(*args, **kwargs):
            _blocked("process", name)
        return no_process

    # The bridge to JavaScript: its modules go (a fresh import then meets the guards) and so does
    # the finder that serves js/pyodide_js.
    # Their modules stay reachable by walking object.__subclasses__() to a function's __globals__,
    # so first empty what they hold of JavaScript: the finder's table (js, pyodide_js) and every
    # JsProxy in a module global. (The worker also strips Pyodide's JS API object.)
    for name in [n for n in sys.modules if n.split(".")[0] in BRIDGE]:
        namespace = getattr(sys.modules[name], "__dict__", None) or {}
        for key, value in list(namespace.items()):
            if isinstance(getattr(value, "jsproxies", None), dict):
                value.jsproxies.clear()
            if any(c.__name__ == "JsProxy" for c in type(value).__mro__) and not isinstance(value, type):
                namespace[key] = None
        del sys.modules[name]
    sys.meta_path[:] = [BridgeBlocker] + [f for f in sys.meta_path if type(f).__module__.split(".")[0] not in BRIDGE]
    sys.path[:] = [p for p in sys.path if p.startswith("/lib/")]
    posix.environ.clear()
    os.environ = Environment()
    os.getenv = os.environ.get
    if hasattr(os, "environb"):
        os.environb = os.environ
    # Processes: emscripten has none, but its stubs fail as plain errors; these make the attempt count.
    for name in ("Popen", "run", "call", "check_call", "check_output", "getoutput", "getstatusoutput"):
        setattr(subprocess, name, process_guard("subprocess." + name))
    for name in ("system", "popen", "fork", "forkpty", "posix_spawn", "posix_spawnp", "kill", "killpg",
                 "execv", "execve", "execl", "execle", "execlp", "execlpe", "execvp", "execvpe",
                 "spawnl", "spawnle", "spawnlp", "spawnlpe", "spawnv", "spawnve", "spawnvp", "spawnvpe"):
        if hasattr(os, name):
            setattr(os, name, process_guard("os." + name))

    def describe(value, _type=type, _int=int, _float=float, _str=str, _getattr=getattr):
        t = _type(value)
        name = _getattr(t, "__qualname__", "?")
        name = name.replace("\0", "") if _type(name) is _str else "?"
        if t is _int:
            try:
                return "ok\0int\0" + _int.__repr__(value)
            except ValueError:
                return "ok\0int\0(too many digits)"
        if t is _float:
            return "ok\0float\0" + _float.__repr__(value)
        if t is _str:
            # repr escapes NUL and newlines, so the protocol's separators cannot appear in it
            return "ok\0str\0" + _str.__repr__(value)[:400]
        if (_getattr(t, "__module__", ""), name) in (("fractions", "Fraction"), ("decimal", "Decimal")):
            return "ok\0" + name + "\0" + _str(value)
        return "ok\0" + name + "\0"

    def run(code, _builtins=builtins, _describe=describe, _seed=random.seed, _compile=compile,
            _exec=exec, _callable=callable, _type=type, _str=str, _base=BaseException, _memory=MemoryError,
            _overflow=OverflowError):
        _seed(0)
        scope = {"__name__": "__solution__", "__builtins__": _builtins}
        try:
            _exec(_compile(code, "<solution>", "exec"), scope)
            solution = scope.get("solution")
            if not _callable(solution):
                return "err\0error\0no solution() function defined"
            return _describe(solution())
        except _memory:
            return "err\0memory\0MemoryError"
        except _overflow as e:
            # One allocation beyond the 32-bit address space fails before it asks for memory.
            if "index-sized" in _str(e):
                return "err\0memory\0OverflowError: allocation larger than the address space"
            return "err\0error\0OverflowError: " + _str(e)[:400]
        except _base as e:
            try:
                detail = _type(e).__name__ + ": " + _str(e)
            except _base:
                detail = "exception"
            return "err\0error\0" + detail.replace("\0", "")[:500]

    # _imp.create_builtin makes a built-in module from its name alone, past sys.modules, the finders
    # and the "import" audit event (a fresh _pyodide_core, or a fresh _imp holding the original
    # function). The guard checks the name and asks the audit hook, the one holder of the original
    # that no Python object leads to, to make the module.
    def create_builtin(spec, _module=module_rule, _blocked=blocked, _audit=sys.audit, _getattr=getattr,
                       _str=str, _type=type, _list=list, _error=ImportError):
        name = _getattr(spec, "name", None)
        if _type(name) is not _str:
            raise TypeError("create_builtin: spec.name must be a str")
        _module(name)
        if name == "_imp":
            _blocked("host-bridge", "create_builtin _imp")
        box = _list()
        _audit("agent_lab.create_builtin", name, box)
        if not box:
            raise _error("cannot create built-in module " + name, name=name)
        return box[0]

    original_create_builtin = _imp.create_builtin
    _imp.create_builtin = create_builtin

    # Host paths: the worker's command line and Pyodide's folder are no business of a task's output.
    sys.argv[:] = [""]
    sys.orig_argv[:] = []
    sys.executable = ""

    # The guards themselves: rewriting one's code or defaults (reachable from sys.meta_path, or a
    # frame) is an escape attempt, not a plain error; the snapshot undoes it for the next task anyway.
    guards = [report, blocked, read_only_lib, module_rule, BridgeBlocker.find_spec, Environment._deny, run, describe,
              create_builtin]
    guards += [f for m in (os, subprocess) for f in vars(m).values() if getattr(f, "__name__", "") == "no_process"]

    def hook(event, args, _blocked=blocked, _lib=read_only_lib, _module=module_rule, _fs=FS_EVENTS,
             _proc=PROCESS_EVENTS, _proc_prefixes=PROCESS_PREFIXES, _net=NETWORK_PREFIXES, _host=HOST_EVENTS,
             _guards=frozenset(map(id, guards)), _id=id, _len=len, _report=report, _str=str, _type=type, _list=list,
             _create=original_create_builtin, _spec=types.SimpleNamespace, _bridge=BRIDGE + PROCESS_MODULES + ("_imp",),
             _base=BaseException):
        if event == "agent_lab.create_builtin":
            # From the guard, or from a task calling sys.audit itself: check again, and raise nothing
            # here (a traceback through this frame would show its locals).
            if _len(args) != 2 or _type(args[0]) is not _str or _type(args[1]) is not _list:
                return
            if args[0].split(".")[0] in _bridge:
                _report("host-bridge", "create_builtin " + args[0])
                return
            try:
                _list.append(args[1], _create(_spec(name=args[0])))
            except _base:
                pass
        elif event == "object.__setattr__" or event == "object.__delattr__":
            # By identity: comparing with == or hashing would run the task's own code inside the hook.
            if _len(args) >= 1 and _id(args[0]) in _guards:
                _blocked("host-bridge", "rewrite of a sandbox guard")
        elif event == "open":
            if not _lib(args[0], args[1]):
                _blocked("filesystem", "open")
        elif event == "os.listdir" or event == "os.scandir":
            if not _lib(args[0], "r"):
                _blocked("filesystem", event)
        elif event == "import":
            _module(args[0])
        elif event in _fs:
            _blocked("filesystem", event)
        elif event in _proc or event.startswith(_proc_prefixes):
            _blocked("process", event)
        elif event.startswith(_net):
            _blocked("network", event)
        elif event == "os.putenv" or event == "os.unsetenv":
            _blocked("environment", event)
        elif event in _host or event.startswith("ctypes."):
            _blocked("host-bridge", event)

    random.seed(0)
    sys.addaudithook(hook)
    return run

_agent_lab_sandbox()
`;
