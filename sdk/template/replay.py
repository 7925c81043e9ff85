"""replay.py — the two helpers of check.sh for replaying recorded streams.

Run with python3 (check.sh does):

  python3 replay.py serve FILE PORT_FILE
      An HTTP server on 127.0.0.1 (a free port, written to PORT_FILE once it
      listens) that answers every POST with the bytes of FILE as
      text/event-stream, until it is killed.

  python3 replay.py compare OUTPUT EXPECTED
      OUTPUT is what `seam chat --json` printed; its last line is the
      `result`. EXPECTED is a JSON object with any of "text" (the text parts
      concatenated), "stop_reason" and "usage" (each count it names must be
      equal). Prints each difference; exits 1 when there is one.
"""
import http.server
import json
import os
import sys


def serve(path, port_file):
    body = open(path, "rb").read()

    class Recorded(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Recorded)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(port_file + ".tmp", port_file)  # a reader never sees a partial file
    server.serve_forever()


def compare(output, expected):
    lines = [json.loads(line) for line in open(output, encoding="utf-8") if line.strip()]
    result = lines[-1] if lines else {}
    want = json.load(open(expected, encoding="utf-8"))
    got = {
        "text": "".join(p.get("text", "") for p in result.get("content", [])
                        if p.get("type") == "text"),
        "stop_reason": result.get("stop_reason"),
        "usage": result.get("usage") or {},
    }
    bad = []
    if result.get("type") != "result":
        bad.append("the last line is not a result: %r" % result)
    for key in ("text", "stop_reason"):
        if key in want and want[key] != got[key]:
            bad.append("%s: expected %r, got %r" % (key, want[key], got[key]))
    for key, value in want.get("usage", {}).items():
        if got["usage"].get(key) != value:
            bad.append("usage.%s: expected %r, got %r" % (key, value, got["usage"].get(key)))
    for line in bad:
        print("  " + line, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "serve":
        serve(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
