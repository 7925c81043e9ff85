#!/usr/bin/env python3
"""torture.py — the allocation-failure torture run of `seam chat`, in the style
of curl's: for each scenario, count the allocations N of an undisturbed run,
then run the scenario N more times, failing allocation 1, 2, ..., N in turn
(tests/torture/failmalloc.c, preloaded), and classify every outcome:

  ok-error    exit 1 or 2 (seam(1)), a message on stderr, no signal
  ok-success  exit 0 and stdout and stderr exactly those of the undisturbed run
  wrong       exit 0 with another output: a wrong success (a dropped prompt, a
              lost text delta, a missing usage count)
  crash       killed by a signal, or any other exit status, or a sanitizer report
  hang        still running after --timeout seconds

The network scenarios talk to tests/fake-provider on 127.0.0.1, which puts the
hash of each request body into the answer (--echo-digest), so a request that
lost part of the prompt cannot pass as a correct success. The mock echoes the
prompt itself.

Usage (from make torture / make check, with top_builddir and top_srcdir set):
  torture.py [--scenario NAME]... [--stride K] [--offset O] [--points LIST]
             [--jobs J] [--timeout S] [--budget S] [--keep DIR] [-v]
Exit status: 0 when no point crashed, hung or succeeded wrongly; 1 otherwise;
77 (skip) when the shim cannot work in this build (sanitizers); 99 on a set-up
error."""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

TOP_BUILD = os.path.abspath(os.environ.get("top_builddir", "."))
TOP_SRC = os.path.abspath(os.environ.get("top_srcdir", TOP_BUILD))
PLUGINS = os.environ.get("SEAM_TEST_PLUGIN_DIR") or os.path.join(TOP_BUILD, "plugins", ".libs")
SHIM = os.path.join(TOP_BUILD, "tests", "torture", ".libs", "failmalloc.so")
FAKE = os.path.join(TOP_BUILD, "tests", "fake-provider")
PROMPT = "Say hello to the torture run"
stopping = threading.Event()

# ---- the scenarios' wire transcripts (one event payload per line) -------------
# Each text carries the request digest mark in one delta: the answer is only
# right when the request was.
OPENAI_SSE = """\
{"id":"c1","object":"chat.completion.chunk","model":"fake-model","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"},"finish_reason":null}]}
{"id":"c1","object":"chat.completion.chunk","model":"fake-model","choices":[{"index":0,"delta":{"content":", request @REQ_DIGEST@"},"finish_reason":null}]}
{"id":"c1","object":"chat.completion.chunk","model":"fake-model","choices":[{"index":0,"delta":{"content":" and w\\u00f6rld."},"finish_reason":null}]}
{"id":"c1","object":"chat.completion.chunk","model":"fake-model","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}
{"id":"c1","object":"chat.completion.chunk","model":"fake-model","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":9,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":5}}}
"""

ANTHROPIC_SSE = """\
{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":25,"cache_read_input_tokens":100,"cache_creation_input_tokens":50,"output_tokens":1}}}
{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}
{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"The user wants a greeting."}}
{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig-1"}}
{"type":"content_block_stop","index":0}
{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}
{"type":"ping"}
{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hello"}}
{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":", request @REQ_DIGEST@ and w\\u00f6rld."}}
{"type":"content_block_stop","index":1}
{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":12}}
{"type":"message_stop"}
"""

GEMINI_SSE = """\
{"candidates":[{"content":{"parts":[{"text":"Hello","thought":false}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":12,"totalTokenCount":14},"modelVersion":"gemini-2.5-flash"}
{"candidates":[{"content":{"parts":[{"text":", request @REQ_DIGEST@"}],"role":"model"},"index":0}]}
{"candidates":[{"content":{"parts":[{"text":" and w\\u00f6rld."}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":9,"totalTokenCount":21}}
"""


class Scenario:
    def __init__(self, name, what, argv, fake=None):
        self.name = name
        self.what = what
        self.argv = argv          # filled in by setup: the seam command line
        self.fake = fake          # (family, transcript) or None
        self.golden = None        # (stdout, stderr) of the undisturbed run
        self.points = 0


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def seam_binary():
    """The real executable, not libtool's wrapper script (the shim must be
    preloaded into seam, not into a shell)."""
    for name in ("lt-seam", "seam"):
        p = os.path.join(TOP_BUILD, "cli", ".libs", name)
        if os.path.exists(p):
            return p
    return os.path.join(TOP_BUILD, "cli", "seam")


def start_fake(work, name, family, transcript):
    sse = os.path.join(work, name + ".sse")
    write(sse, transcript)
    port_file = os.path.join(work, name + ".port")
    log = open(os.path.join(work, name + ".fake.log"), "w")
    proc = subprocess.Popen([FAKE, "--port-file", port_file, "--split", "23", "--echo-digest", "1",
                             "--sse-file", sse, "--family", family],
                            stdout=log, stderr=log)
    for _ in range(200):
        if os.path.exists(port_file) and os.path.getsize(port_file) > 0:
            break
        time.sleep(0.05)
    else:
        proc.kill()
        raise RuntimeError("the fake provider did not start")
    with open(port_file) as f:
        return proc, int(f.read().strip())


def setup(work, names):
    """Writes the confs, starts the fake providers, returns the scenarios."""
    seam = seam_binary()
    procs = []
    scenarios = []

    # Every run is --no-log: the conversation log is the CLI's own SQLite file,
    # whose failure is a warning beside a whole answer, not a library path.
    # conf load + mock chat: the shipped seam.conf with every conf.d drop-in
    # and the model catalog, then a chat through the mock.
    confdir = os.path.join(work, "conf")
    os.makedirs(os.path.join(confdir, "conf.d"))
    shutil.copy(os.path.join(TOP_SRC, "conf", "seam.conf"), os.path.join(confdir, "seam.conf"))
    for f in sorted(os.listdir(os.path.join(TOP_SRC, "conf", "conf.d"))):
        shutil.copy(os.path.join(TOP_SRC, "conf", "conf.d", f), os.path.join(confdir, "conf.d", f))
    with open(os.path.join(confdir, "seam.conf"), "a") as f:
        f.write('\nplugin_path = [ "%s" ];\nmodel_catalog = "%s";\n'
                % (PLUGINS, os.path.join(TOP_SRC, "conf", "models.conf")))
    scenarios.append(Scenario("mock", "conf load + mock chat",
                              [seam, "--conf", os.path.join(confdir, "seam.conf"), "chat", "--no-log",
                               "--provider", "mock", "--model", "mock", "--system", "Be brief.", PROMPT]))

    families = [("openai", "openai", OPENAI_SSE, "v1", "gpt-4o"),
                ("anthropic", "anthropic", ANTHROPIC_SSE, "v1", "claude-sonnet-4-5"),
                ("gemini", "gemini", GEMINI_SSE, "v1beta", "gemini-2.5-flash")]
    for name, family, sse, base, model in families:
        if name not in names or not os.path.exists(os.path.join(PLUGINS, name + ".so")):
            continue
        proc, port = start_fake(work, name, family, sse)
        procs.append(proc)
        conf = os.path.join(work, name + ".conf")
        write(conf, 'plugin_path = [ "%s" ];\nmodel_catalog = "";\n'
                    'providers = { p = { plugin = "%s"; base_url = "http://127.0.0.1:%d/%s";\n'
                    '                    api_key = "torture-key"; }; };\n'
                    % (PLUGINS, family, port, base))
        scenarios.append(Scenario(name, "a streamed %s chat (--json)" % name,
                                  [seam, "--conf", conf, "chat", "--no-log", "--json", "--provider", "p",
                                   "--model", model, "--system", "Be brief.", PROMPT]))

    # A tool-loop run on the CLI tests' tool conf: the mock calls two command
    # tools, then answers.
    tools = os.path.join(work, "tools.conf")
    with open(os.path.join(TOP_SRC, "tests", "conf", "tools.conf")) as f:
        shared = f.read()
    write(tools, 'plugin_path = [ "%s" ];\nmodel_catalog = "";\n' % PLUGINS
          + shared.replace("@ADD_COMMAND@", "echo 5"))
    scenarios.append(Scenario("tools", "a tool-loop run (chat --tools, --json)",
                              [seam, "--conf", tools, "chat", "--no-log", "--json", "--tools", "add,fail", PROMPT]))
    return [s for s in scenarios if s.name in names], procs


def run_point(sc, work, at, timeout, trace=False, gdb=False):
    """Runs the scenario with allocation `at` failing (0: none). Returns
    (outcome, detail, rc, stdout, stderr, report)."""
    report = os.path.join(work, "report.%s.%d.%d" % (sc.name, at, threading.get_ident()))
    env = point_env(work, at, report)
    env["SEAM_FAIL_TRACE"] = report + ".trace"
    if gdb:
        argv = ["gdb", "-q", "-batch", "-ex", "set breakpoint pending on", "-ex", "break failmalloc_hit",
                "-ex", "run", "-ex", "bt 16", "-ex", "continue", "-ex", "bt 30", "--args"] + sc.argv
        subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, timeout=120)
        return ("gdb", "", 0, b"", b"", "")
    return classify(sc, env, report, timeout)


def point_env(work, at, report):
    env = dict(os.environ)
    for k in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "SEAM_CONF"):
        env.pop(k, None)
    env.update({
        "LD_PRELOAD": SHIM,
        "LD_LIBRARY_PATH": os.path.join(TOP_BUILD, ".libs") + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else ""),
        "SEAM_FAIL_PROG": "seam",
        "SEAM_FAIL_AT": str(at),
        "SEAM_FAIL_REPORT": report or "",
        "SEAM_PLUGIN_PATH": "",
        # glibc fills freed and fresh blocks, so a use after free or of
        # uninitialised memory shows sooner; a double free aborts.
        "MALLOC_PERTURB_": "165",
        "HOME": os.path.join(work, "home"),
        "XDG_CONFIG_HOME": os.path.join(work, "home", ".config"),
    })
    return env


def classify(sc, env, report, timeout):
    try:
        p = subprocess.run(sc.argv, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=timeout, start_new_session=True)
    except subprocess.TimeoutExpired as e:
        return ("hang", "no exit after %gs" % timeout, None, e.stdout or b"", e.stderr or b"", "")
    rep = ""
    for path in (report, report + ".trace"):
        try:
            with open(path, errors="replace") as f:
                rep += f.read()
            os.unlink(path)
        except OSError:
            pass
    out, err, rc = p.stdout, p.stderr, p.returncode
    if b"Sanitizer" in err or b"runtime error:" in err:
        return ("crash", "sanitizer report", rc, out, err, rep)
    if rc < 0:
        return ("crash", "signal %s" % signal.Signals(-rc).name, rc, out, err, rep)
    if rc in (1, 2):
        # --json reports the error as the last line of stdout; otherwise stderr.
        last = out.strip().splitlines()[-1:] if out.strip() else []
        json_error = bool(last) and last[0].startswith(b'{"type":"error"')
        if not err.strip() and not json_error:
            return ("wrong", "exit %d with no message" % rc, rc, out, err, rep)
        return ("ok-error", "exit %d" % rc, rc, out, err, rep)
    if rc == 0:
        if sc.golden is None or (out, err) == sc.golden:
            return ("ok-success", "", rc, out, err, rep)
        return ("wrong", "exit 0, output differs from the undisturbed run", rc, out, err, rep)
    return ("crash", "exit status %d" % rc, rc, out, err, rep)


LIBC_FRAME = ("libc.so", "failmalloc", "libc_start", "/sysdeps/", "../csu/", "raise", "abort", "__assert_fail", "pthread_kill",
              "__strcpy", "__memmove", "__memcpy", "__strlen", "__strcmp", "__memset")


def resolve(line):
    """A backtrace_symbols_fd line as a gdb-like frame line: seam's own
    objects resolved to function and file:line with addr2line."""
    m = re.match(r"(\S+?)\((\w*)(?:\+(0x[0-9a-f]+))?\)\s*\[(0x[0-9a-f]+)\]", line)
    if not m:
        return line
    module, func, off, addr = m.groups()
    seams = TOP_BUILD in module or "/.libs/" in module
    if seams and not func and off and shutil.which("addr2line"):
        try:
            p = subprocess.run(["addr2line", "-f", "-e", module, off], capture_output=True, timeout=10)
            fn, where = (p.stdout.decode(errors="replace").splitlines() + ["??", "??:0"])[:2]
            where = where.split(" ")[0]
            for top in (TOP_SRC + "/", TOP_BUILD + "/"):
                if where.startswith(top):
                    where = where[len(top):]
            if not where.startswith("??"):
                return "in %s () at %s" % (fn, where)
            func = fn
        except (OSError, subprocess.TimeoutExpired):
            pass
    return "in %s () from %s" % (func or "??", module)


def trace_frames(trace):
    """The crash's frames from the shim's trace file (see failmalloc.c)."""
    lines = trace.splitlines()
    start = max((i for i, l in enumerate(lines) if l.startswith("failmalloc: crash")), default=None)
    if start is None:
        return []
    return ["#%d  %s" % (i, resolve(l)) for i, l in enumerate(lines[start + 1:])]


def crash_site(frames):
    """(where, dependency): the first frame that is not libc's, and the
    dependency it is in when it is not seam's code (None otherwise): libconfig,
    or json-c's parser. A json-c or libc assertion is a broken precondition:
    the caller's fault, never a dependency's."""
    assertion = any("__assert_fail" in f for f in frames)
    for f in frames:
        if any(m in f for m in LIBC_FRAME):
            continue
        if "libconfig.so" in f and not assertion:
            return f, "libconfig"
        if "libjson-c.so" in f and not assertion and any("json_tokener_parse" in g for g in frames):
            return f, "json-c"
        break
    # seam's: named by its innermost frame in seam's own code
    for f in frames:
        if " at libcore/" in f or " at plugins/" in f or " at cli/" in f:
            m = re.search(r"(\w+) \(.*\) at (\S+:\d+)", f)
            return ("%s %s" % m.groups() if m else f), None
    return (frames[0] if frames else "(no frames)"), None


def parse_count(rep):
    for line in rep.splitlines():
        if not line.startswith("count="):
            continue
        fields = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
        if "count" in fields:
            return int(fields["count"])
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenario", action="append",
                    help="mock, openai, anthropic, gemini, tools (default: all)")
    ap.add_argument("--stride", type=int, default=1, help="run every K-th point")
    ap.add_argument("--offset", type=int, default=0, help="start at point 1+O")
    ap.add_argument("--points", help="comma-separated points to run (overrides stride)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds before a point is a hang")
    ap.add_argument("--budget", type=float, default=0, help="stop starting points after S seconds")
    ap.add_argument("--keep", help="write the outputs of bad points to this directory")
    ap.add_argument("--gdb", action="store_true", help="run the --points under gdb: the failed allocation's backtrace, then the crash's")
    ap.add_argument("--tolerate-wrong", action="append", default=[], metavar="SCENARIO",
                    help="wrong successes of SCENARIO are reported but do not fail the run "
                         "(for a known, open defect while it is being fixed)")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()

    if not os.path.exists(SHIM):
        print("torture: %s not built" % SHIM, file=sys.stderr)
        return 99
    if "-fsanitize" in open(os.path.join(TOP_BUILD, "Makefile")).read().split("SAN_CFLAGS =", 1)[-1].split("\n", 1)[0]:
        print("torture: skipped, a sanitizer build replaces malloc itself")
        return 77

    names = a.scenario or ["mock", "openai", "anthropic", "gemini", "tools"]
    work = tempfile.mkdtemp(prefix="seam-torture.")
    os.makedirs(os.path.join(work, "home", ".config"))
    procs = []
    bad_total = 0
    start = time.time()
    try:
        scenarios, procs = setup(work, names)
        for sc in scenarios:
            outcome, detail, rc, out, err, rep = run_point(sc, work, 0, a.timeout)
            if outcome != "ok-success":
                print("torture: %s: the undisturbed run failed (%s %s):\n%s%s"
                      % (sc.name, outcome, detail, out.decode(errors="replace"),
                         err.decode(errors="replace")), file=sys.stderr)
                return 99
            sc.golden = (out, err)
            sc.points = parse_count(rep) or 0
            if sc.points == 0:
                print("torture: %s: the shim counted nothing (%r)" % (sc.name, rep), file=sys.stderr)
                return 99

        for sc in scenarios:
            if a.points:
                todo = [int(x) for x in a.points.split(",") if x]
            else:
                todo = list(range(1 + a.offset, sc.points + 1, max(1, a.stride)))
            counts = {}
            bad = []
            lock = threading.Lock()
            ran = [0]

            if a.gdb:
                for at in todo:
                    print("torture: %s point %d under gdb" % (sc.name, at), flush=True)
                    run_point(sc, work, at, a.timeout, gdb=True)
                continue

            def one(at):
                if stopping.is_set() or (a.budget and time.time() - start > a.budget):
                    return
                res = run_point(sc, work, at, a.timeout)
                outcome = res[0]
                with lock:
                    ran[0] += 1
                    counts[outcome] = counts.get(outcome, 0) + 1
                    if outcome not in ("ok-error", "ok-success"):
                        bad.append((at, res))

            with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
                try:
                    list(pool.map(one, todo))
                except KeyboardInterrupt:
                    stopping.set()  # the queued points return at once
                    raise
            # Each crash's site, from a backtrace under gdb: a crash inside
            # libconfig's parser is a dependency's (doc/reliability.md).
            sites = {}
            if True:
                crashes = [b for b in bad if b[1][0] == "crash"]

                def site_of(b):
                    frames = trace_frames(b[1][5])
                    return b, frames, crash_site(frames)

                with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
                    for b, frames, (where, dep) in pool.map(site_of, crashes):
                        if dep:
                            bad.remove(b)
                            counts["crash"] -= 1
                            counts["dep-crash"] = counts.get("dep-crash", 0) + 1
                        sites.setdefault((where, dep), []).append((b[0], frames))
            summary = ", ".join("%s %d" % (k, counts.get(k, 0))
                                for k in ("ok-error", "ok-success", "wrong", "crash", "hang", "dep-crash"))
            print("torture: %-9s %5d allocations, %5d points run: %s" % (sc.name, sc.points, ran[0], summary))
            for (where, dep), pts in sorted(sites.items(), key=lambda kv: kv[1][0][0]):
                print("  %s crash at %d point(s) (%s): %s"
                      % (dep or "seam", len(pts), ",".join(str(p) for p, _ in pts[:8]), where))
                if a.verbose:
                    for f in pts[0][1][:14]:
                        print("      " + f[:200])
            bad.sort(key=lambda b: b[0])
            for at, (outcome, detail, rc, out, err, rep) in bad:
                print("  point %d: %s (%s)" % (at, outcome, detail))
                if a.verbose:
                    tail = err.decode(errors="replace").strip().splitlines()[-6:]
                    for line in tail:
                        print("    " + line)
                if a.keep:
                    os.makedirs(a.keep, exist_ok=True)
                    base = os.path.join(a.keep, "%s.%d" % (sc.name, at))
                    with open(base + ".out", "wb") as f:
                        f.write(out)
                    with open(base + ".err", "wb") as f:
                        f.write(err)
                    with open(base + ".trace", "w") as f:
                        f.write(rep)
            if a.keep and bad:
                with open(os.path.join(a.keep, "%s.golden.out" % sc.name), "wb") as f:
                    f.write(sc.golden[0])
                with open(os.path.join(a.keep, "%s.golden.err" % sc.name), "wb") as f:
                    f.write(sc.golden[1])
                with open(os.path.join(a.keep, "%s.cmd" % sc.name), "w") as f:
                    f.write(" ".join("'%s'" % x for x in sc.argv) + "\n")
            bad_total += len([b for b in bad
                              if not (b[1][0] == "wrong" and sc.name in a.tolerate_wrong)])
        print("torture: %.0f s" % (time.time() - start))
        return 1 if bad_total else 0
    finally:
        for p in procs:
            p.terminate()
            p.wait()
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    # SIGTERM (make's timeout, CI) stops like Ctrl-C: the fake providers end too.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
