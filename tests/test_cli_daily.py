#!/usr/bin/env python3
"""test_cli_daily.py — `seam` as a daily tool (issue 15): piped stdin with a
prompt, write errors, Ctrl-D on a terminal, the mock's answer marked and
skipped providers named, the user conf overlaying the system one, a model
alone, the per-request options, keys, logs and the interactive chat driven
through a pseudo-terminal. Every call goes to the loopback fake provider
(tests/fake-provider --record), whose record of the requests it received is
what most checks read. Run by `make check` (top_builddir, top_srcdir and
SEAM_TEST_PLUGIN_DIR set); prints "N passed, N failed" and exits 1 on a
failure."""

import json
import os
import pty
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

TOP_BUILD = os.environ.get("top_builddir") or sys.exit("top_builddir must be set")
TOP_SRC = os.environ.get("top_srcdir") or sys.exit("top_srcdir must be set")
PLUGINS = os.environ.get("SEAM_TEST_PLUGIN_DIR") or os.path.join(TOP_BUILD, "plugins/.libs")
SEAM = os.path.join(TOP_BUILD, "cli/seam")
FAKE = os.path.join(TOP_BUILD, "tests/fake-provider")
SECRET = "sk-seamtest-DAILY-5c1e9a7b3d2f4086"

os.umask(0o022)
# Below the build tree: the loader refuses plugins below a world-writable /tmp,
# and the test's homes must not be shared.
WORK = tempfile.mkdtemp(prefix="tmp-daily.", dir=os.path.join(TOP_BUILD, "tests"))
os.chmod(WORK, 0o700)

passed = 0
failed = 0
fakes = []


def check(cond, what, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print("ok: " + what)
    else:
        failed += 1
        print("FAIL: " + what)
        if detail:
            print("  " + str(detail).replace("\n", "\n  "))


def path(*p):
    return os.path.join(WORK, *p)


def write(name, text, mode=0o644):
    p = path(name)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)
    os.chmod(p, mode)
    return p


def sse_text(*pieces, model="fake-model"):
    """An OpenAI chat stream answering with the pieces of text."""
    lines = []
    for i, t in enumerate(pieces):
        delta = {"content": t}
        if i == 0:
            delta["role"] = "assistant"
        lines.append(json.dumps({"id": "c1", "object": "chat.completion.chunk", "model": model,
                                 "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}))
    lines.append(json.dumps({"id": "c1", "object": "chat.completion.chunk", "model": model,
                             "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}))
    lines.append(json.dumps({"id": "c1", "object": "chat.completion.chunk", "model": model,
                             "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 3,
                                                      "total_tokens": 8}}))
    return "\n".join(lines) + "\n"


class Fake:
    """tests/fake-provider on an ephemeral port, recording every request body."""

    def __init__(self, name, *args, sse=None):
        self.record = path(name + ".requests")
        open(self.record, "w").close()
        pf = path(name + ".port")
        extra = list(args)
        if sse is not None:
            extra = ["--sse-file", write(name + ".sse", sse), "--family", "openai"] + extra
        self.proc = subprocess.Popen([FAKE, "--port-file", pf, "--record", self.record] + extra,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        fakes.append(self)
        for _ in range(400):
            if os.path.exists(pf) and os.path.getsize(pf) > 0:
                break
            time.sleep(0.025)
        with open(pf) as f:
            self.port = int(f.read())
        self.url = "http://127.0.0.1:%d/v1" % self.port

    def requests(self, want=0, wait=3.0):
        """The request bodies received so far (as JSON), waiting up to `wait`
        seconds for at least `want` of them."""
        until = time.time() + wait
        while True:
            with open(self.record) as f:
                lines = [l for l in f.read().splitlines() if l.strip()]
            if len(lines) >= want or time.time() >= until:
                out = []
                for l in lines:
                    try:
                        out.append(json.loads(l))
                    except ValueError:
                        out.append({"unparsed": l})
                return out
            time.sleep(0.02)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait()


def messages_text(body):
    """The request's messages as (role, text) pairs (OpenAI chat shape)."""
    out = []
    for m in body.get("messages", []):
        c = m.get("content")
        if isinstance(c, list):
            c = "".join(p.get("text", "") for p in c if isinstance(p, dict))
        out.append((m.get("role"), c))
    return out


def env_for(home=None, **extra):
    env = {k: v for k, v in os.environ.items()
           if not k.endswith("_API_KEY") and k not in ("SEAM_CONF", "NO_COLOR")}
    env["SEAM_PLUGIN_PATH"] = ""
    env["SEAM_TEST_FAKE_KEY"] = SECRET
    home = home or path("home")
    os.makedirs(home, exist_ok=True)
    env["HOME"] = home
    env["XDG_CONFIG_HOME"] = os.path.join(home, ".config")
    env["XDG_DATA_HOME"] = os.path.join(home, ".local/share")
    env["XDG_STATE_HOME"] = os.path.join(home, ".local/state")
    env.update(extra)
    return env


def run(args, stdin=b"", env=None, timeout=20, **kw):
    """Runs seam; returns (exit code, stdout, stderr) as text."""
    p = subprocess.run([SEAM] + args, input=stdin, capture_output=True,
                       env=env or env_for(), timeout=timeout, **kw)
    out, err = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    with open(path("all.log"), "a") as f:
        f.write("== %s (exit %d)\n%s%s" % (" ".join(args), p.returncode, out, err))
    return p.returncode, out, err


def fake_conf(name, fake, extra=""):
    return write(name, """plugin_path = [ "%s" ];
providers = {
  fake = { plugin = "openai"; base_url = "%s"; api_key_env = "SEAM_TEST_FAKE_KEY"; };
};
chains = {
  default = ( { provider = "fake"; model = "fake-model"; max_attempts = 1; } );
};
%s""" % (PLUGINS, fake.url, extra))


class Pty:
    """seam on a pseudo-terminal: what a person at a terminal sees and types."""

    def __init__(self, args, env=None, stdout_file=None):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            try:
                if stdout_file:
                    os.dup2(os.open(stdout_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 1)
                os.execve(SEAM, [SEAM] + args, env or env_for())
            finally:
                os._exit(127)
        self.seen = b""

    def send(self, data):
        os.write(self.fd, data if isinstance(data, bytes) else data.encode())

    def expect(self, text, timeout=10.0):
        """Reads until `text` was seen (returns True) or the time is up."""
        want = text.encode() if isinstance(text, str) else text
        until = time.time() + timeout
        while want not in self.seen:
            left = until - time.time()
            if left <= 0:
                return False
            r, _, _ = select.select([self.fd], [], [], left)
            if r:
                try:
                    data = os.read(self.fd, 4096)
                except OSError:
                    return want in self.seen
                if not data:
                    return want in self.seen
                self.seen += data
        return True

    def wait(self, timeout=10.0):
        """The exit status, or None when it did not end in time (then killed)."""
        until = time.time() + timeout
        while time.time() < until:
            try:
                r, _, _ = select.select([self.fd], [], [], 0.05)
                if r:
                    self.seen += os.read(self.fd, 4096)
            except OSError:
                pass
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        os.close(self.fd)
        return None


def text(b):
    return b.decode(errors="replace")


# ---- the tests ----------------------------------------------------------------

def test_stdin_and_prompt():
    fake = Fake("stdin", sse=sse_text("Summary."))
    conf = fake_conf("stdin.conf", fake)
    rc, out, err = run(["--conf", conf, "chat", "summarize"], stdin=b"report text\n")
    reqs = fake.requests(1)
    check(rc == 0, "piped stdin + prompt: exit 0", err)
    user = " ".join(t for r, t in messages_text(reqs[0]) if r == "user") if reqs else ""
    check("report text" in user and "summarize" in user,
          "piped stdin + prompt: both reach the provider", user)
    check(user.find("report text") < user.find("summarize"),
          "piped stdin + prompt: stdin first (the context), then the prompt", user)
    fake.stop()


def test_write_errors():
    fake = Fake("full", sse=sse_text("An answer."))
    conf = fake_conf("full.conf", fake)
    with open("/dev/full", "wb") as full:
        p = subprocess.run([SEAM, "--conf", conf, "chat", "hi"], stdout=full,
                           stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env_for())
    err = text(p.stderr)
    check(p.returncode == 1, "> /dev/full: exit 1 (was %d)" % p.returncode, err)
    check("cannot write" in err, "> /dev/full: says it cannot write", err)
    # stdout closed
    p = subprocess.run("exec %s --conf %s chat hi >&-" % (SEAM, conf), shell=True,
                       stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env_for())
    check(p.returncode == 1, "stdout closed: exit 1 (was %d)" % p.returncode, text(p.stderr))
    # a closed pipe ends quietly
    long = Fake("long", sse=sse_text(*["line %d\n" % i for i in range(2000)]))
    lconf = fake_conf("long.conf", long)
    p = subprocess.run("%s --conf %s chat hi | head -1" % (SEAM, lconf), shell=True,
                       capture_output=True, stdin=subprocess.DEVNULL, env=env_for())
    check(text(p.stdout) == "line 0\n", "| head -1: the first line", text(p.stdout))
    check("seam:" not in text(p.stderr), "| head -1: nothing on stderr", text(p.stderr))
    fake.stop()
    long.stop()


def test_ctrl_d_once():
    fake = Fake("ctrld", sse=sse_text("Got it."))
    conf = fake_conf("ctrld.conf", fake)
    # stdin a terminal, stdout a file: the prompt is read from the terminal.
    out = path("ctrld.out")
    t = Pty(["--conf", conf, "chat"], stdout_file=out)
    t.expect("Ctrl-D")
    t.send("typed question")
    t.send(b"\x04")
    code = t.wait(5)
    with open(out) as f:
        answer = f.read()
    check(code == 0 and "Got it." in answer,
          "a typed prompt ends with one Ctrl-D (exit %s)" % code, text(t.seen) + answer)
    reqs = fake.requests(1, wait=0.5)
    check(reqs and ("user", "typed question") in messages_text(reqs[0]),
          "the typed prompt is sent", reqs)
    fake.stop()


def mock_conf(name, fake):
    return write(name, """plugin_path = [ "%s" ];
providers = {
  real = { plugin = "openai"; base_url = "%s"; api_key_env = "SEAM_TEST_UNSET_KEY"; };
  mock = { plugin = "mock"; };
  broken = { plugin = "openai"; base_url = "%s"; api_key_env = "SEAM_TEST_FAKE_KEY"; };
  absent = { plugin = "no-such-plugin"; };
};
chains = {
  default = ( { provider = "real"; model = "m"; max_attempts = 1; },
              { provider = "mock"; model = "mock"; max_attempts = 1; } );
  nokey = ( { provider = "real"; model = "m"; max_attempts = 1; } );
  noplugin = ( { provider = "absent"; model = "m"; max_attempts = 1; },
               { provider = "undefined"; model = "m"; max_attempts = 1; } );
  failing = ( { provider = "real"; model = "m"; max_attempts = 1; },
              { provider = "broken"; model = "m"; max_attempts = 1; } );
};
""" % (PLUGINS, fake.url, fake.url))


def test_mock_marked():
    fake = Fake("mockmark", sse=sse_text("never"))
    conf = mock_conf("mock.conf", fake)
    rc, out, err = run(["--conf", conf, "chat", "hello"])
    check(rc == 0 and "mock" in out, "the mock answers the default chain", out + err)
    check("seam: skipped real: environment variable SEAM_TEST_UNSET_KEY is not set" in err,
          "stderr names the skipped provider and why", err)
    check("offline mock" in err and "not a model" in err,
          "stderr marks the answer as the offline mock's", err)
    rc, out, err = run(["--conf", conf, "chat", "--no-mock", "hello"])
    check(rc != 0 and out == "", "--no-mock: fails instead (exit %d), no answer" % rc, out + err)
    check("SEAM_TEST_UNSET_KEY" in err, "--no-mock: says why the real provider was skipped", err)
    rc, out, err = run(["--conf", conf, "chat", "--json", "hello"])
    check(rc == 0 and "offline mock" in err, "--json: the mark on stderr too", err)
    fake.stop()


def test_exit_code_conf_skips():
    fake = Fake("skips", "--status", "500", "--json-body", '{"error":{"message":"boom"}}')
    conf = mock_conf("skips.conf", fake)
    rc, out, err = run(["--conf", conf, "chat", "--chain", "nokey", "hello"])
    check(rc == 2, "a chain skipped for want of a key: exit 2 (was %d)" % rc, err)
    rc, out, err = run(["--conf", conf, "chat", "--chain", "noplugin", "hello"])
    check(rc == 2, "a chain skipped for a missing plugin or provider: exit 2 (was %d)" % rc, err)
    rc, out, err = run(["--conf", conf, "chat", "--chain", "failing", "hello"])
    check(rc == 1, "a chain whose tried entry failed: exit 1 (was %d)" % rc, err)
    check("seam: skipped real:" in err, "...and the skipped entry is named", err)
    with open(os.path.join(TOP_SRC, "doc/seam.1")) as f:
        man = f.read()
    section = man[man.find(".SH EXIT STATUS"):]
    section = section[:section.find(".SH", 4)]
    two = section[section.find(".B 2"):]
    check("skipped" in two and "credential" in two,
          "seam(1): exit status 2 covers a chain skipped for a conf reason", section)
    fake.stop()


def main():
    tests = [v for k, v in sorted(globals().items()) if k.startswith("test_")]
    only = sys.argv[1:]
    try:
        for t in tests:
            if only and t.__name__ not in only:
                continue
            print("# " + t.__name__)
            try:
                t()
            except Exception as e:  # a crash of one test is a failure, not the end
                import traceback
                check(False, t.__name__ + " raised", traceback.format_exc())
        # No credential in any output.
        try:
            with open(path("all.log")) as f:
                log = f.read()
            check(SECRET not in log, "no credential in any output")
        except FileNotFoundError:
            pass
    finally:
        for f in fakes:
            f.stop()
        shutil.rmtree(WORK, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
