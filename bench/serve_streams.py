#!/usr/bin/env python3
"""serve_streams.py — N concurrent SSE streams through `seam serve` (issue
17's benchmark): opens N streamed chat completions (in waves of --wave every
--wave-ms, so the fake upstream's response queue keeps up), counts the
content chunks each stream receives, samples the gateway's VmRSS and open
fds once every stream is open, and prints one JSON line.

usage: serve_streams.py PORT GATEWAY_PID N EXPECTED_CHUNKS"""
import asyncio, json, os, sys, time

port, pid, n, expected = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
WAVE, WAVE_MS = 10, 20
body = json.dumps({"model": "default", "stream": True,
                   "messages": [{"role": "user", "content": "x"}]}).encode()
req = (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n"
       b"Content-Length: %d\r\n\r\n" % len(body)) + body

def rss_kib():
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0

opened = 0
inflight = 0   # streams between their first byte and their end

def dechunk(raw):
    """The body of an HTTP/1.1 response with chunked transfer encoding."""
    head, _, rest = raw.partition(b"\r\n\r\n")
    if b"chunked" not in head.lower():
        return head, rest
    out = bytearray()
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0] or b"0", 16)
        if size == 0:
            break
        out += rest[:size]
        rest = rest[size + 2:]
    return head, bytes(out)


ok200 = []


async def one(i, counts, done):
    global opened, inflight
    r, w = await asyncio.open_connection("127.0.0.1", port)
    w.write(req)
    await w.drain()
    raw = bytearray()
    while True:
        data = await r.read(65536)
        if not data:
            break
        if not raw:
            inflight += 1
            opened += 1
        raw += data
        if raw.endswith(b"\r\n0\r\n\r\n"):
            break
    inflight -= 1
    w.close()
    head, body = dechunk(bytes(raw))
    # one content chunk per event: the text of each is "tick "
    counts[i] = body.count(b'"content":"tick "')
    if head.startswith(b"HTTP/1.1 200"):
        ok200.append(i)
    done[i] = head.startswith(b"HTTP/1.1 200") and body.endswith(b"data: [DONE]\n\n")


async def main():
    counts, done = [0] * n, [False] * n
    rss0 = rss_kib()
    fds0 = len(os.listdir(f"/proc/{pid}/fd"))
    t0 = time.time()
    tasks = []
    for i in range(n):
        tasks.append(asyncio.create_task(one(i, counts, done)))
        if (i + 1) % WAVE == 0:
            await asyncio.sleep(WAVE_MS / 1000)
    # the gateway's RSS and fds once the most streams are open: wait until
    # every stream is open (or the count stops growing for 2 s), then take the
    # median of five samples 200 ms apart
    best, still = 0, 0.0
    while inflight < n and still < 2.0:
        await asyncio.sleep(0.1)
        if inflight > best:
            best, still = inflight, 0.0
        else:
            still += 0.1
    samples = []
    for _ in range(5):
        samples.append((inflight, rss_kib(), len(os.listdir(f"/proc/{pid}/fd"))))
        await asyncio.sleep(0.2)
    samples.sort(key=lambda x: x[1])
    top, rss1, fds1 = samples[2]
    top = max(top, 1)
    await asyncio.gather(*tasks)
    got = sum(counts)
    print(json.dumps({"streams": n, "most_open_at_once": top,
                      "rss_before_kib": rss0, "rss_peak_kib": rss1,
                      "rss_per_stream_kib": round((rss1 - rss0) / top, 1),
                      "fds_per_stream": round((fds1 - fds0) / top, 2),
                      "chunks_expected": n * expected, "chunks_received": got,
                      "streams_refused": n - len(ok200),
                      "chunks_lost_in_accepted_streams": sum(expected - counts[i] for i in ok200),
                      "streams_completed": sum(done), "seconds": round(time.time() - t0, 1)}))

asyncio.run(main())
