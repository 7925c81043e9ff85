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

    def expect(self, text, timeout=10.0, after=None):
        """Reads until `text` was seen (returns True) or the time is up; with
        `after`, only what came after the first `after` counts (a prompt seen
        before does not answer for the next one)."""
        want = text.encode() if isinstance(text, str) else text
        mark = after.encode() if isinstance(after, str) else after

        def seen():
            if mark is None:
                return want in self.seen
            at = self.seen.find(mark)
            return at >= 0 and want in self.seen[at + len(mark):]
        until = time.time() + timeout
        while not seen():
            left = until - time.time()
            if left <= 0:
                return False
            r, _, _ = select.select([self.fd], [], [], left)
            if r:
                try:
                    data = os.read(self.fd, 4096)
                except OSError:
                    return seen()
                if not data:
                    return seen()
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


def test_user_conf_overlays_system():
    fake = Fake("overlay", sse=sse_text("From the packaged provider."))
    # The system conf: the shipped seam.conf and conf.d/, plus a package's
    # drop-in defining the provider `packaged` (here, the fake server).
    etc = path("etc/seam")
    os.makedirs(os.path.join(etc, "conf.d"))
    shutil.copy(os.path.join(TOP_SRC, "conf/seam.conf"), etc)
    for f in os.listdir(os.path.join(TOP_SRC, "conf/conf.d")):
        shutil.copy(os.path.join(TOP_SRC, "conf/conf.d", f), os.path.join(etc, "conf.d"))
    write("etc/seam/conf.d/50-packaged.conf", """plugin_path = [ "%s" ];
providers = {
  packaged = { plugin = "openai"; base_url = "%s"; api_key_env = "SEAM_TEST_FAKE_KEY"; };
};
""" % (PLUGINS, fake.url))
    home = path("overlay-home")
    # The personal conf holds only a chain, and replaces the shipped `mock`.
    user = write("overlay-home/.config/seam/seam.conf", """chains = {
  mine = ( { provider = "packaged"; model = "fake-model"; max_attempts = 1; } );
};
providers = {
  mock = { plugin = "mock"; options = { reply = "personal mock"; }; };
};
""")
    env = env_for(home, SEAM_SYSTEM_CONF=os.path.join(etc, "seam.conf"))
    rc, out, err = run(["chat", "--chain", "mine", "hello"], env=env)
    check(rc == 0 and "From the packaged provider." in out,
          "a personal conf with only a chain reaches a provider of the system conf.d/", out + err)
    check(len(fake.requests(1)) == 1, "...the request arrived")
    rc, out, err = run(["providers"], env=env)
    for name in ("openai", "anthropic", "gemini", "packaged", "mock"):
        check(("  %s: plugin" % name) in out, "providers: the personal conf still sees %s" % name,
              out + err)
    rc, out, err = run(["config", "show"], env=env)
    check(rc == 0, "config show: exit 0", err)
    line = [l for l in out.splitlines() if l.startswith("  packaged = ")]
    check(line and line[0].endswith("# %s/conf.d/50-packaged.conf:3" % etc),
          "config show: a provider with the file:line it came from", out)
    line = [l for l in out.splitlines() if l.startswith("  mock = ")]
    check(line and line[0].endswith("# %s:5" % user) and "personal mock" in line[0],
          "config show: the personal definition replaces the system one", out)
    line = [l for l in out.splitlines() if l.startswith("  mine = ")]
    check(line and line[0].endswith("# %s:2" % user), "config show: the personal chain", out)
    check("SEAM_TEST_FAKE_KEY" in out and SECRET not in out, "config show: no credential", out)
    # An explicit conf is read alone.
    rc, out, err = run(["--conf", user, "chat", "--chain", "mine", "hello"], env=env)
    check(rc == 2, "--conf FILE is a whole conf of its own (exit %d)" % rc, err)
    fake.stop()


def test_model_alone():
    fake = Fake("model", sse=sse_text("Hi from the catalog's provider."))
    catalog = write("catalog.conf", """models = (
  { id = "cat-model-1"; provider = "openai"; context_window = 1000;
    capabilities = [ "tools", "streaming" ];
    price = { input = 100000000L; output = 200000000L; }; }
);
""")
    conf = fake_conf("model.conf", fake, 'model_catalog = "%s";\n' % catalog)
    rc, out, err = run(["--conf", conf, "chat", "-m", "cat-model-1", "hi"])
    reqs = fake.requests(1)
    check(rc == 0 and "catalog's provider" in out, "-m MODEL alone: answered (exit %d)" % rc, err)
    check(reqs and reqs[-1].get("model") == "cat-model-1",
          "-m MODEL alone reaches the catalog's provider with that model", reqs)
    rc, out, err = run(["--conf", conf, "chat", "--model", "unknown-model", "hi"])
    check(rc == 2 and "unknown-model" in err, "a model nobody serves: usage error naming it", err)
    rc, out, err = run(["--conf", conf, "models"])
    check(rc == 0 and "cat-model-1" in out and "fake (credential set)" in out and "$1.00/$2.00" in out,
          "seam models: the model, its price and the configured provider", out + err)
    rc, out, err = run(["--conf", conf, "models", "--json"])
    rows = [json.loads(l) for l in out.splitlines() if l.strip()]
    check(rows and rows[0]["id"] == "cat-model-1" and rows[0]["configured_as"] == "fake"
          and rows[0]["has_credential"] is True and rows[0]["capabilities"] == ["tools", "streaming"]
          and rows[0]["price"] == {"input": 100000000, "output": 200000000},
          "seam models --json", out + err)
    fake.stop()


PNG_1PX = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


CAPABLE = """models = ( { id = "fake-model"; provider = "fake";
  capabilities = [ "tools", "streaming", "vision", "reasoning", "structured_output" ]; } );
"""


def test_request_options():
    fake = Fake("opts", sse=sse_text('{"answer": 42}'))
    conf = fake_conf("opts.conf", fake, CAPABLE)
    img = path("pixel.png")
    with open(img, "wb") as f:
        f.write(PNG_1PX)
    schema = '{"type":"object","properties":{"answer":{"type":"integer"}},"required":["answer"]}'
    rc, out, err = run(["--conf", conf, "chat", "-s", "Be terse.", "--temperature", "0.25",
                        "--max-tokens", "42", "--stop", "END", "--stop", "XX", "--schema", schema,
                        "-a", img, "What is it?"])
    reqs = fake.requests(1)
    body = reqs[-1] if reqs else {}
    check(rc == 0, "per-request options: exit 0 (the answer matches the schema)", err)
    check(messages_text(body)[:1] == [("system", "Be terse.")], "-s: the system prompt", body)
    check(body.get("temperature") == 0.25, "--temperature", body)
    check(42 in (body.get("max_tokens"), body.get("max_completion_tokens")), "--max-tokens", body)
    check(body.get("stop") == ["END", "XX"], "--stop, repeated", body)
    rf = body.get("response_format") or {}
    check(rf.get("type") == "json_schema", "--schema: structured output asked for", body)
    user = [m for m in body.get("messages", []) if m.get("role") == "user"]
    parts = user[-1].get("content") if user else None
    check(isinstance(parts, list) and any(p.get("type") == "image_url" for p in parts),
          "-a FILE: the image is sent", parts)
    bad = Fake("optsbad", sse=sse_text("not json"))
    rc, out, err = run(["--conf", fake_conf("optsbad.conf", bad, CAPABLE), "chat", "--schema", schema, "q"])
    check(rc == 1 and "does not match --schema" in err, "--schema: an answer that does not match fails", err)
    rc, out, err = run(["--conf", conf, "chat", "--temperature", "hot", "q"])
    check(rc == 2, "--temperature: a bad value is a usage error", err)
    rc, out, err = run(["--conf", conf, "chat", "--reasoning", "high", "q"])
    check(rc == 0, "--reasoning LEVEL accepted", err)
    fake.stop()
    bad.stop()


def built_with(feature):
    """Whether `seam --version` says this build has `feature` (sqlite, libedit)."""
    p = subprocess.run([SEAM, "--version"], capture_output=True)
    return feature in text(p.stdout)


def test_logs_and_continue():
    if not built_with("sqlite"):
        rc, out, err = run(["logs"])
        check(rc == 2 and "without SQLite" in err, "--without-sqlite: seam logs says so", err)
        return
    fake = Fake("logs", sse=sse_text("Answer one."))
    conf = fake_conf("logs.conf", fake)
    home = path("logs-home")
    env = env_for(home)
    rc, out, err = run(["--conf", conf, "chat", "-s", "Be brief.", "first question"], env=env)
    check(rc == 0, "logged chat: exit 0", err)
    db = os.path.join(home, ".local/share/seam/logs.db")
    check(os.path.exists(db) and (os.stat(db).st_mode & 0o777) == 0o600,
          "the log is $XDG_DATA_HOME/seam/logs.db, mode 0600")
    rc, out, err = run(["--conf", conf, "chat", "-c", "second question"], env=env)
    reqs = fake.requests(2)
    msgs = messages_text(reqs[-1]) if len(reqs) == 2 else []
    check(msgs == [("system", "Be brief."), ("user", "first question"),
                   ("assistant", "Answer one."), ("user", "second question")],
          "-c continues the logged conversation (its turns and system prompt sent)", msgs)
    rc, out, err = run(["logs", "--json", "-n", "0"], env=env)
    rows = [json.loads(l) for l in out.splitlines() if l.strip()]
    check(rc == 0 and len(rows) == 2, "seam logs --json: both exchanges", out + err)
    if len(rows) == 2:
        r = rows[0]
        check(r["prompt"] == "first question" and r["answer"] == "Answer one."
              and r["provider"] == "fake" and r["model"] == "fake-model"
              and r["usage"].get("input_tokens") == 5 and r["usage"].get("output_tokens") == 3
              and "duration_ms" in r, "a log row: prompt, answer, provider, model, usage, duration", r)
        check(rows[0]["cid"] == rows[1]["cid"], "-c: the same conversation id", rows)
        cid = rows[0]["cid"]
        rc, out, err = run(["--conf", conf, "chat", "--cid", cid, "third"], env=env)
        reqs = fake.requests(3)
        check(len(reqs) == 3 and len(reqs[-1]["messages"]) == 6, "--cid ID continues that conversation",
              reqs[-1:] if reqs else reqs)
        rc, out, err = run(["logs", "--cid", cid, "-n", "0"], env=env)
        check(out.count("> ") == 3 and "> third" in out, "seam logs --cid: its exchanges", out)
    rc, out, err = run(["logs", "-q", "second", "--json"], env=env)
    check(len(out.splitlines()) == 1 and "second question" in out, "seam logs -q TEXT", out)
    rc, out, err = run(["logs", "-n", "1", "--json"], env=env)
    check(len(out.splitlines()) == 1 and '"third"' in out, "seam logs -n 1: the newest", out)
    run(["--conf", conf, "chat", "--no-log", "unlogged one"], env=env)
    off = fake_conf("logs-off.conf", fake, "cli = { log = false; };\n")
    run(["--conf", off, "chat", "unlogged two"], env=env)
    rc, out, err = run(["logs", "-n", "0"], env=env)
    check("unlogged" not in out, "--no-log and cli.log = false keep an exchange out of the log", out)
    with open(db, "rb") as f:
        check(SECRET.encode() not in f.read(), "the log holds no credential")
    rc, out, err = run(["--conf", conf, "chat", "--cid", "no-such-cid", "x"], env=env)
    check(rc == 2, "--cid of an unknown conversation: usage error", err)
    fake.stop()


def test_interactive():
    fake = Fake("repl", sse=sse_text("Answer one."))
    conf = fake_conf("repl.conf", fake)
    home = path("repl-home")
    env = env_for(home, TERM="dumb")
    t = Pty(["--conf", conf, "chat"], env=env)
    check(t.expect("> "), "interactive: a prompt on a terminal", text(t.seen))
    t.send("first turn\r")
    check(t.expect("Answer one."), "interactive: the first answer", text(t.seen))
    t.expect("> ")
    t.send("second turn\r")
    t.expect("Answer one.\r\n", timeout=5)
    reqs = fake.requests(2)
    msgs = messages_text(reqs[-1]) if len(reqs) == 2 else []
    check(msgs == [("user", "first turn"), ("assistant", "Answer one."), ("user", "second turn")],
          "interactive: the second turn's request carries the first turn", reqs)
    t.expect("> ")
    t.send("/system Be brief.\r")
    t.expect("system prompt set")
    t.send("/save %s\r" % path("saved.md"))
    t.expect("saved the conversation")
    t.send("/clear\r")
    t.expect("a new conversation")
    t.send("after clear\r")
    t.expect("Answer one.", timeout=5)
    reqs = fake.requests(3)
    check(len(reqs) == 3 and messages_text(reqs[-1]) == [("system", "Be brief."), ("user", "after clear")],
          "interactive: /system sets the system prompt, /clear forgets the turns",
          reqs[-1:] if reqs else reqs)
    t.send("/exit\r")
    code = t.wait(5)
    check(code == 0, "interactive: /exit leaves with 0 (exit %s)" % code, text(t.seen))
    try:
        with open(path("saved.md")) as f:
            saved = f.read()
    except OSError:
        saved = ""
    check("## user\n\nfirst turn" in saved and "## assistant\n\nAnswer one." in saved,
          "interactive: /save writes the conversation", saved)
    hist = os.path.join(home, ".local/state/seam/history")
    check(not built_with("libedit") or os.path.exists(hist) and (os.stat(hist).st_mode & 0o777) == 0o600
          and "first" in open(hist).read(), "interactive: a private history file", hist)
    # -c continues the conversation logged from the terminal.
    if not built_with("sqlite"):
        fake.stop()
        return
    rc, out, err = run(["--conf", conf, "chat", "-c", "one more"], env=env)
    reqs = fake.requests(4)
    check(len(reqs) == 4 and messages_text(reqs[-1])[-2:] == [("assistant", "Answer one."),
                                                               ("user", "one more")]
          and ("user", "after clear") in messages_text(reqs[-1]),
          "-c continues the conversation logged interactively", reqs[-1:] if reqs else reqs)
    fake.stop()


def test_interactive_ctrl_c_and_ctrl_d():
    slow = Fake("slow", "--split", "40", "--delay", "100",
                sse=sse_text(*["tick %d " % i for i in range(100)]))
    conf = fake_conf("slow.conf", slow)
    t = Pty(["--conf", conf, "chat"], env=env_for(path("slow-home"), TERM="dumb"))
    t.expect("> ")
    t.send("go\r")
    check(t.expect("tick 1 "), "interactive: a slow answer streams", text(t.seen))
    os.kill(t.pid, signal.SIGINT)  # as the terminal's Ctrl-C does, to the foreground process
    check(t.expect("cancelled"), "Ctrl-C stops the answer", text(t.seen))
    check(t.expect("> ", after="cancelled"), "...and the conversation goes on", text(t.seen))
    alive = os.waitpid(t.pid, os.WNOHANG)[0] == 0
    check(alive, "Ctrl-C does not end the program")
    os.kill(t.pid, signal.SIGINT)  # Ctrl-C at the prompt: nothing
    time.sleep(0.2)
    check(os.waitpid(t.pid, os.WNOHANG)[0] == 0, "Ctrl-C at the prompt does not leave")
    t.send(b"\x04")
    code = t.wait(5)
    check(code == 0, "Ctrl-D leaves (exit %s)" % code, text(t.seen))
    slow.stop()


def test_keys():
    fake = Fake("keys", sse=sse_text("Keyed."))
    conf = write("keys.conf", """plugin_path = [ "%s" ];
providers = {
  keyed = { plugin = "openai"; base_url = "%s"; api_key_env = "SEAM_TEST_KEYED_KEY"; };
};
chains = { default = ( { provider = "keyed"; model = "fake-model"; max_attempts = 1; } ); };
""" % (PLUGINS, fake.url))
    home = path("keys-home")
    env = env_for(home)
    rc, out, err = run(["--conf", conf, "chat", "hi"], env=env)
    check(rc == 2, "no key: the chain is skipped for want of one (exit %d)" % rc, err)
    stored = "sk-seamtest-STORED-0a9b8c7d6e5f"
    rc, out, err = run(["keys", "set", "keyed"], stdin=(stored + "\n").encode(), env=env)
    f = os.path.join(home, ".config/seam/keys/keyed")
    check(rc == 0 and os.path.exists(f) and (os.stat(f).st_mode & 0o777) == 0o600
          and (os.stat(os.path.dirname(f)).st_mode & 0o777) == 0o700,
          "keys set: stored mode 0600 in a 0700 folder under $XDG_CONFIG_HOME/seam", err)
    check(stored not in out + err, "keys set: the key is not echoed", out + err)
    rc, out, err = run(["keys", "list"], env=env)
    check(rc == 0 and out == "keyed\n", "keys list: names only", out)
    rc, out, err = run(["--conf", conf, "chat", "hi"], env=env)
    check(rc == 0 and "Keyed." in out, "the stored key is used when the variable is not set", err)
    rc, out, err = run(["--conf", conf, "providers"], env=env)
    check("credential env SEAM_TEST_KEYED_KEY (set)" in out, "providers: the credential is set", out)
    env2 = dict(env, SEAM_TEST_KEYED_KEY="sk-seamtest-FROMENV-1122")
    rc, out, err = run(["--conf", conf, "chat", "hi"], env=env2)
    check(rc == 0, "the environment variable first", err)
    os.chmod(f, 0o644)
    rc, out, err = run(["--conf", conf, "chat", "hi"], env=env)
    check(rc == 2, "a stored key others can read is not used (exit %d)" % rc, err)
    rc, out, err = run(["keys", "set", "../evil"], stdin=b"x\n", env=env)
    check(rc == 2, "keys set: a name is not a path", err)
    with open(path("all.log")) as log:
        check(stored not in log.read(), "the stored key never shows in any output")
    fake.stop()


def test_templates_and_aliases():
    fake = Fake("tmpl", sse=sse_text("Word."))
    catalog = write("tmpl-catalog.conf", 'models = ( { id = "cat-model-2"; provider = "openai"; } );\n')
    conf = fake_conf("tmpl.conf", fake, """model_catalog = "%s";
cli = {
  aliases = { fast = "cat-model-2"; };
  templates = {
    terse = { system = "Answer in one word."; model = "fast"; temperature = 0.1;
              max_tokens = 5; stop = [ "." ]; };
    broken = { sytem = "typo"; };
  };
};
""" % catalog)
    rc, out, err = run(["--conf", conf, "chat", "-m", "fast", "q"])
    reqs = fake.requests(1)
    check(rc == 0 and reqs and reqs[-1].get("model") == "cat-model-2",
          "-m ALIAS: the conf's alias names the model, the catalog its provider", err)
    rc, out, err = run(["--conf", conf, "chat", "-t", "terse", "q"])
    reqs = fake.requests(2)
    b = reqs[-1] if len(reqs) == 2 else {}
    check(rc == 0 and messages_text(b)[:1] == [("system", "Answer in one word.")]
          and b.get("model") == "cat-model-2" and b.get("temperature") == 0.1
          and b.get("stop") == ["."] and 5 in (b.get("max_tokens"), b.get("max_completion_tokens")),
          "-t NAME: the template's system, model (through its alias) and options", b)
    rc, out, err = run(["--conf", conf, "chat", "-t", "terse", "-s", "Mine.", "--temperature", "0.7", "q"])
    reqs = fake.requests(3)
    b = reqs[-1] if len(reqs) == 3 else {}
    check(messages_text(b)[:1] == [("system", "Mine.")] and b.get("temperature") == 0.7,
          "-t NAME: the command line wins over the template", b)
    rc, out, err = run(["--conf", conf, "chat", "-t", "nope", "q"])
    check(rc == 2 and "nope" in err, "-t of an undefined template: usage error", err)
    rc, out, err = run(["--conf", conf, "chat", "-t", "broken", "q"])
    check(rc == 2 and "sytem" in err, "a template's unknown setting is named", err)
    fake.stop()


def test_no_color():
    fake = Fake("color", sse=sse_text("Colours."))
    conf = fake_conf("color.conf", fake)
    # stderr a terminal: the usage line is dimmed ...
    t = Pty(["--conf", conf, "chat", "hi"], env=env_for(TERM="xterm"))
    t.wait(10)
    check(b"\x1b[2mtokens:" in t.seen, "a terminal: the usage line is dimmed", text(t.seen))
    # ... not with NO_COLOR, nor with TERM=dumb, nor when stderr is not a terminal.
    t = Pty(["--conf", conf, "chat", "hi"], env=env_for(TERM="xterm", NO_COLOR="1"))
    t.wait(10)
    check(b"\x1b[" not in t.seen and b"tokens:" in t.seen, "NO_COLOR: no escape sequence", text(t.seen))
    t = Pty(["--conf", conf, "chat", "hi"], env=env_for(TERM="dumb"))
    t.wait(10)
    check(b"\x1b[" not in t.seen, "TERM=dumb: no escape sequence", text(t.seen))
    rc, out, err = run(["--conf", conf, "chat", "hi"], env=env_for(TERM="xterm"))
    check("\x1b[" not in err + out, "stderr not a terminal: no escape sequence", err)
    fake.stop()


def test_completions():
    bash = shutil.which("bash")
    if not bash:
        print("skip: no bash")
        return
    comp = os.path.join(TOP_SRC, "cli/completions/seam")
    fake = Fake("compl", sse=sse_text("x"))
    conf = fake_conf("compl.conf", fake)

    def complete(*words):
        script = ('PATH=%s:$PATH; source %s; COMP_WORDS=(%s); COMP_CWORD=%d; _seam; '
                  'printf "%%s\\n" "${COMPREPLY[@]}"'
                  % (os.path.dirname(SEAM), comp, " ".join("'%s'" % w for w in words), len(words) - 1))
        p = subprocess.run([bash, "-c", script], capture_output=True, env=env_for(SEAM_CONF=conf))
        return text(p.stdout).split()

    check(complete("seam", "mo") == ["models"], "bash completion: a subcommand", complete("seam", "mo"))
    check("--temperature" in complete("seam", "chat", "--te"), "bash completion: a chat option")
    check(complete("seam", "chat", "--chain", "") == ["default"], "bash completion: the conf's chains",
          complete("seam", "chat", "--chain", ""))
    check(complete("seam", "keys", "set", "") == ["fake"], "bash completion: provider names for keys set")
    am = open(os.path.join(TOP_SRC, "Makefile.am")).read()
    check("dist_bashcompletion_DATA = cli/completions/seam" in am
          and "dist_zshcompletion_DATA = cli/completions/_seam" in am,
          "both completions are installed")
    zsh = shutil.which("zsh")
    if zsh:
        p = subprocess.run([zsh, "-n", os.path.join(TOP_SRC, "cli/completions/_seam")],
                           capture_output=True)
        check(p.returncode == 0, "zsh completion: parses", text(p.stderr))
    fake.stop()


def test_exit_codes():
    """Every exit status seam(1) documents, each produced."""
    with open(os.path.join(TOP_SRC, "doc/seam.1")) as f:
        man = f.read()
    section = man[man.find(".SH EXIT STATUS"):]
    section = section[:section.find("\n.SH", 4)]
    lines = section.splitlines()
    documented = [l[3:].strip() for i, l in enumerate(lines)
                  if l.startswith(".B ") and i and lines[i - 1] == ".TP"]
    check(documented == ["0", "1", "2", "130"], "seam(1) documents 0, 1, 2 and 130", documented)
    ok = Fake("ec-ok", sse=sse_text("fine"))
    err500 = Fake("ec-500", "--status", "500", "--json-body", '{"error":{"message":"down"}}')
    slow = Fake("ec-slow", "--split", "40", "--delay", "100", sse=sse_text(*["t%d " % i for i in range(80)]))
    rc, _, e = run(["--conf", fake_conf("ec-ok.conf", ok), "chat", "hi"])
    check(rc == 0, "exit 0: an answer", e)
    rc, _, e = run(["--conf", fake_conf("ec-500.conf", err500), "chat", "hi"])
    check(rc == 1, "exit 1: a provider error (%d)" % rc, e)
    rc, _, e = run(["chat", "--frob", "hi"])
    check(rc == 2, "exit 2: a usage error (%d)" % rc, e)
    bad = write("ec-bad.conf", "providers = { x = { plugin = 3; }; };\n")
    rc, _, e = run(["--conf", bad, "chat", "hi"])
    check(rc == 2, "exit 2: a conf error (%d)" % rc, e)
    p = subprocess.Popen([SEAM, "--conf", fake_conf("ec-slow.conf", slow), "chat", "hi"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                         env=env_for())
    first = p.stdout.read(3)
    p.send_signal(signal.SIGINT)
    out, e = p.communicate(timeout=10)
    check(first and p.returncode == 130, "exit 130: interrupted (%s)" % p.returncode, text(e))
    for f in (ok, err500, slow):
        f.stop()


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
