#!/usr/bin/env python3
"""Time `photos browse` in a tmux pane against a fixture server; print one JSON object.

    browse.py keys         --photos BIN --server URL --ca CA [--keys 150]
    browse.py scroll       --photos BIN --server URL --ca CA [--count 1000]
    browse.py first-screen --photos BIN --server URL --ca CA [--runs 5]
    browse.py list-grid    --photos BIN --server URL --ca CA [--runs 5]

keys: a 160x50 pane, symbols mode; once the first screen is complete, moves the selection
  --keys times (right, left, down and up, a row of scrolling included), one key every 40 ms, and
  reads each key's time from its arrival to the end of its frame's write, as photos measured it
  (PHOTOS_BROWSE_TIMINGS).
scroll: pages down through --count photos (the server must list that many), then reads the
  process's peak RSS (VmHWM) before quitting.
first-screen: from just before photos starts to the first screen whose every tile has its
  picture (or is marked empty), at whatever latency the server has; a fresh cache each run.
list-grid: `photos list --format grid` of the same first page, 160 columns, fresh cache each run.

Every run gets its own cache folder, tmux server (private socket) and no config file.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

WIDTH, HEIGHT = 160, 50


class Pane:
    def __init__(self, folder, script):
        self.folder = folder
        self.socket = os.path.join(folder, "tmux.sock")
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": folder, "TERM": "xterm-256color",
                    "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
        self.tmux("new-session", "-d", "-x", str(WIDTH), "-y", str(HEIGHT), "-s", "bench", "/bin/sh " + script)

    def tmux(self, *arguments):
        result = subprocess.run(["tmux", "-u", "-S", self.socket, "-f", "/dev/null", *arguments], env=self.env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True)
        return result.stdout.decode("utf-8", "replace")

    def screen(self):
        return self.tmux("capture-pane", "-p", "-t", "bench")

    def keys(self, *keys):
        self.tmux("send-keys", "-t", "bench", *keys)

    def wait(self, what, condition, timeout=120):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if condition(screen):
                return screen
            time.sleep(0.02)
        raise SystemExit(f"browse.py: timed out waiting for {what}; screen:\n{self.screen()}")

    def close(self):
        try:
            self.tmux("kill-session", "-t", "bench")
        except subprocess.CalledProcessError:
            pass


def status_line(screen):
    lines = [line for line in screen.split("\n") if line.strip()]
    return lines[-1] if lines else ""


def first_screen_complete(screen):
    return "1/30" in status_line(screen) and "loading" not in screen


class Browse:
    """One run of photos browse in a pane, with its own cache."""

    def __init__(self, args, extra_env=None):
        self.folder = tempfile.mkdtemp(prefix="photos-bench-browse.")
        self.timings = os.path.join(self.folder, "timings")
        self.start_file = os.path.join(self.folder, "start")
        self.status_file = os.path.join(self.folder, "status")
        self.pid_file = os.path.join(self.folder, "shell.pid")
        env = {
            "PHOTOS_PLACEHOLDER_API": args.server, "PHOTOS_CA_BUNDLE": args.ca,
            "PHOTOS_CACHE_DIR": os.path.join(self.folder, "cache"), "PHOTOS_CONFIG": "/dev/null",
            "PHOTOS_BROWSE_TIMINGS": self.timings, "COLORTERM": "truecolor",
        }
        env.update(extra_env or {})
        quote = lambda text: "'" + text.replace("'", "'\\''") + "'"
        script = os.path.join(self.folder, "run.sh")
        with open(script, "w") as handle:
            handle.write("#!/bin/sh\n")
            for name, value in env.items():
                handle.write(f"export {name}={quote(value)}\n")
            handle.write(f"echo $$ > {quote(self.pid_file)}\n")
            handle.write(f"date +%s%3N > {quote(self.start_file)}\n")
            handle.write(f"{quote(args.photos)} browse --provider placeholder --graphics symbols 2> {quote(self.folder + '/stderr')}\n")
            handle.write(f"echo $? > {quote(self.status_file)}\n")
            handle.write("exec sleep 600\n")
        self.pane = Pane(self.folder, script)

    def pid(self):
        shell = open(self.pid_file).read().strip()
        children = open(f"/proc/{shell}/task/{shell}/children").read().split()
        return int(children[0])

    def quit(self):
        self.pane.keys("q")
        deadline = time.monotonic() + 60
        while not os.path.exists(self.status_file) or not open(self.status_file).read().strip():
            if time.monotonic() > deadline:
                raise SystemExit("browse.py: photos did not quit")
            time.sleep(0.02)
        status = int(open(self.status_file).read().strip())
        self.pane.close()
        timings = {"keys": []}
        if os.path.exists(self.timings):
            for line in open(self.timings):
                name, value = line.split()
                if name == "key_to_drawn_us":
                    timings["keys"].append(int(value) / 1000)
                else:
                    timings[name] = int(value)
        timings["start"] = int(open(self.start_file).read().strip())
        shutil.rmtree(self.folder, ignore_errors=True)
        if status != 0:
            raise SystemExit(f"browse.py: photos browse exited {status}")
        return timings


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def run_keys(args):
    browse = Browse(args)
    browse.pane.wait("the first screen", first_screen_complete)
    moves = []
    while len(moves) < args.keys:
        moves += ["Right"] * 3 + ["Down"] * 4 + ["Left"] * 3 + ["Up"] * 4
    for key in moves[:args.keys]:
        browse.pane.keys(key)
        time.sleep(0.04)
    time.sleep(0.5)
    timings = browse.quit()
    keys = timings["keys"]
    return {"keys": len(keys), "median_ms": statistics.median(keys), "p95_ms": percentile(keys, 0.95),
            "max_ms": max(keys), "over_16ms": sum(1 for k in keys if k > 16)}


def run_scroll(args):
    browse = Browse(args)
    browse.pane.wait("the first screen", first_screen_complete)
    started = time.monotonic()
    position = 0
    deadline = time.monotonic() + 600
    while position < args.count:
        if time.monotonic() > deadline:
            raise SystemExit(f"browse.py: scrolling stalled at {position}")
        browse.pane.keys("PageDown")
        time.sleep(0.05)
        status = status_line(browse.pane.screen())
        try:
            position = int(status.split("·")[1].strip().split("/")[0])
        except (IndexError, ValueError):
            pass
    seconds = time.monotonic() - started
    peak = 0
    for line in open(f"/proc/{browse.pid()}/status"):
        if line.startswith("VmHWM:"):
            peak = int(line.split()[1]) / 1024
    browse.quit()
    return {"photos": position, "peak_rss_mb": peak, "seconds": seconds}


def run_first_screen(args):
    values = []
    for _ in range(args.runs):
        browse = Browse(args)
        browse.pane.wait("the first screen", first_screen_complete)
        timings = browse.quit()
        if "first_screen_unix_ms" not in timings:
            raise SystemExit("browse.py: photos did not report its first screen")
        values.append(timings["first_screen_unix_ms"] - timings["start"])
    return {"runs": len(values), "median_ms": statistics.median(values), "min_ms": min(values), "max_ms": max(values)}


def run_list_grid(args):
    values = []
    for _ in range(args.runs):
        folder = tempfile.mkdtemp(prefix="photos-bench-grid.")
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": folder, "PHOTOS_PLACEHOLDER_API": args.server,
               "PHOTOS_CA_BUNDLE": args.ca, "PHOTOS_CACHE_DIR": os.path.join(folder, "cache"),
               "PHOTOS_CONFIG": "/dev/null", "COLUMNS": str(WIDTH), "TERM": "xterm-256color",
               "COLORTERM": "truecolor"}
        started = time.monotonic()
        result = subprocess.run([args.photos, "list", "--provider", "placeholder", "--format", "grid", "--graphics", "symbols"],
                                env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        values.append((time.monotonic() - started) * 1000)
        shutil.rmtree(folder, ignore_errors=True)
        if result.returncode != 0:
            raise SystemExit(f"browse.py: photos list exited {result.returncode}")
    return {"runs": len(values), "median_ms": statistics.median(values), "min_ms": min(values), "max_ms": max(values)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["keys", "scroll", "first-screen", "list-grid"])
    parser.add_argument("--photos", required=True)
    parser.add_argument("--server", required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--keys", type=int, default=150)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--name", default="")
    parser.add_argument("--note", default="")
    args = parser.parse_args()
    runner = {"keys": run_keys, "scroll": run_scroll, "first-screen": run_first_screen, "list-grid": run_list_grid}[args.mode]
    result = runner(args)
    result.update({"name": args.name or args.mode, "note": args.note, "mode": args.mode})
    print(json.dumps(result))


if __name__ == "__main__":
    main()
