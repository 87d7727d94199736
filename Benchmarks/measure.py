#!/usr/bin/env python3
"""Run one command several times and print one JSON object describing the runs.

    measure.py --name curl --runs 5 [--warmup 1] [--fresh-dir DIR] [--expect-files N]
               [--stats-url https://127.0.0.1:PORT --ca-file ca.pem] [--output FILE]
               -- COMMAND [ARGS...]
               [::: --name OTHER [--fresh-dir ...] [--expect-files ...] [--stats-url ...] [--note ...]
                    -- COMMAND [ARGS...]] ...

Commands separated by `:::` are measured side by side: round after round, each runs once (the
first of the round turning with each round), so that the machine's slow moments, frequent on a
shared host, fall on every command alike rather than on whichever ran then. Each such command
names its own --name, --fresh-dir, --expect-files, --stats-url, --ca-file and --note; --runs,
--warmup, --rusage-exec and --output come from the first. One JSON line is printed per command.

Per run:
  * DIR (when given) is deleted and recreated empty before the command starts;
  * the fixture server's counters are reset (`GET /__stats?reset=1`) before, and read after;
  * wall time is measured around spawn .. os.wait4 of the child; with --rusage-exec it is the
    time rusage-exec measured from its fork to its wait4 (the command's own start to exit,
    without the helper's start of a few ms), and the outer time is kept as outer_wall_ms;
  * peak RSS comes from the rusage that wait4 returns for that child (ru_maxrss, KiB on Linux),
    so every run reports its own peak rather than the maximum over all children. Linux keeps a
    process's peak across execve and Python starts children with vfork, so a command started
    straight from here reports at least this interpreter's own peak (~20 MB). With
    --rusage-exec (the small rusage-exec program of this package, which forks, execs and wait4s
    the command) the reported peak is the command's own; `rss_floor_mb` is what /bin/true
    reports through the same path, i.e. the smallest value the column can show;
  * the files in DIR are counted and summed afterwards, so tools that only claim success are
    checked too;
  * the command's stdout is kept when it is one JSON object (photos and urlsession-fetch print
    their own summary: files, failed, wall_ms, ...).

Summary fields: median_wall_ms, min/max_wall_ms, peak_rss_mb (largest of the runs),
median_rss_mb, rss_floor_mb, median_cpu_ms (user + system, whole process), connections and requests
(medians of the runs; null without --stats-url), ok (every run exited 0 and, with --expect-files,
wrote that many non-empty files).
"""

import argparse
import json
import os
import shutil
import signal
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request


def fetch_stats(base_url, context, reset=False):
    """The server's counters, or {} (reported as null) when the server does not answer."""
    url = base_url.rstrip("/") + "/__stats" + ("?reset=1" if reset else "")
    try:
        with urllib.request.urlopen(url, context=context, timeout=10) as response:
            return json.loads(response.read().decode("utf-8"))
    except (OSError, ValueError) as error:
        print(f"measure.py: {url}: {error}", file=sys.stderr)
        return {}


def count_files(directory):
    files = 0
    total = 0
    empty = 0
    for root, _dirs, names in os.walk(directory):
        for name in names:
            size = os.path.getsize(os.path.join(root, name))
            files += 1
            total += size
            if size == 0:
                empty += 1
    return files, total, empty


def run_once(command, args, context, stats_overhead):
    report = None
    if args.rusage_exec:
        fd, report = tempfile.mkstemp(prefix="rusage-", suffix=".json")
        os.close(fd)
        command = [args.rusage_exec, "--report", report, "--"] + command
    if args.fresh_dir:
        shutil.rmtree(args.fresh_dir, ignore_errors=True)
        os.makedirs(args.fresh_dir)
    if args.stats_url:
        fetch_stats(args.stats_url, context, reset=True)

    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Read both pipes to the end before reaping, so the child never blocks on a full pipe and
    # its rusage is taken with os.wait4 rather than lost to Popen.wait.
    out, err = _drain(child)
    _pid, status, usage = os.wait4(child.pid, 0)
    elapsed_ms = (time.perf_counter() - started) * 1000.0
    child.returncode = os.waitstatus_to_exitcode(status)
    max_rss_kb, user_s, sys_s = usage.ru_maxrss, usage.ru_utime, usage.ru_stime
    outer_ms = elapsed_ms
    if report:
        try:
            with open(report) as handle:
                measured = json.loads(handle.read())
            max_rss_kb = measured["max_rss_kb"]
            user_s, sys_s = measured["user_us"] / 1e6, measured["sys_us"] / 1e6
            if "wall_us" in measured:
                elapsed_ms = measured["wall_us"] / 1000.0
        except (OSError, ValueError, KeyError):
            pass  # the helper could not run the command; keep its own usage
        finally:
            os.unlink(report)

    record = {
        "wall_ms": round(elapsed_ms, 2),
        "outer_wall_ms": round(outer_ms, 2),
        "max_rss_mb": round(max_rss_kb / 1024.0, 1),
        "user_ms": round(user_s * 1000.0, 1),
        "sys_ms": round(sys_s * 1000.0, 1),
        "exit": child.returncode,
    }
    if args.stats_url:
        stats = fetch_stats(args.stats_url, context)
        # The reading request opens one HTTP/1.1 connection of its own, counted on accept.
        connections = stats.get("connections")
        record["connections"] = None if connections is None else max(0, connections - stats_overhead)
        record["streams"] = stats.get("streams")
        record["requests"] = stats.get("requests")
    if args.fresh_dir:
        files, total, empty = count_files(args.fresh_dir)
        record["files_written"] = files
        record["bytes_written"] = total
        record["empty_files"] = empty
    text = out.decode("utf-8", "replace").strip()
    if text.startswith("{") and text.endswith("}") and "\n" not in text:
        try:
            record["tool"] = json.loads(text)
        except ValueError:
            pass
    if child.returncode != 0:
        record["stderr_tail"] = err.decode("utf-8", "replace")[-2000:]
        if "tool" not in record:
            record["stdout_tail"] = text[-2000:]
    return record


def _drain(child):
    """Reads stdout and stderr to EOF without reaping the child (unlike Popen.communicate)."""
    import selectors

    chunks = {child.stdout: [], child.stderr: []}
    selector = selectors.DefaultSelector()
    for stream in chunks:
        selector.register(stream, selectors.EVENT_READ)
    while selector.get_map():
        for key, _ in selector.select():
            data = os.read(key.fileobj.fileno(), 65536)
            if data:
                chunks[key.fileobj].append(data)
            else:
                selector.unregister(key.fileobj)
                key.fileobj.close()
    return b"".join(chunks[child.stdout]), b"".join(chunks[child.stderr])


def make_parser():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--name", required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=0, help="untimed runs first")
    parser.add_argument("--fresh-dir")
    parser.add_argument("--expect-files", type=int)
    parser.add_argument("--stats-url")
    parser.add_argument("--ca-file")
    parser.add_argument("--note", default="")
    parser.add_argument("--rusage-exec", help="path of the rusage-exec helper (exact peak RSS)")
    parser.add_argument("--output", help="also write the JSON here")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    return parser


def split_segments(argv):
    """The arguments of each command measured side by side (separated by `:::`)."""
    segments = [[]]
    for argument in argv:
        if argument == ":::":
            segments.append([])
        else:
            segments[-1].append(argument)
    return segments


class Measured:
    """One command of the run: its options, its server's context, and its runs so far."""

    def __init__(self, args, first):
        self.args = args
        # The options of the whole run come from the first command.
        for shared in ("runs", "warmup", "rusage_exec", "output"):
            setattr(self.args, shared, getattr(first, shared))
        self.command = args.command[1:] if args.command[:1] == ["--"] else args.command
        self.context = None
        self.overhead = 0
        if args.stats_url:
            self.context = ssl.create_default_context(cafile=args.ca_file)
            fetch_stats(args.stats_url, self.context, reset=True)
            self.overhead = fetch_stats(args.stats_url, self.context).get("connections", 0)
        self.runs = []

    def run(self):
        return run_once(self.command, self.args, self.context, self.overhead)

    def summary(self, floor):
        args, runs = self.args, self.runs
        ok = all(run["exit"] == 0 for run in runs)
        if args.expect_files is not None and args.fresh_dir:
            ok = ok and all(
                run["files_written"] == args.expect_files and run["empty_files"] == 0 for run in runs
            )
        walls = [run["wall_ms"] for run in runs]
        rss = [run["max_rss_mb"] for run in runs]
        return {
            "name": args.name,
            "note": args.note,
            "command": self.command,
            "runs": len(runs),
            "ok": ok,
            "median_wall_ms": round(statistics.median(walls), 2),
            "min_wall_ms": min(walls),
            "max_wall_ms": max(walls),
            "median_cpu_ms": round(statistics.median(run["user_ms"] + run["sys_ms"] for run in runs), 1),
            "peak_rss_mb": max(rss),
            "median_rss_mb": round(statistics.median(rss), 1),
            "rss_floor_mb": floor["max_rss_mb"],
            "connections": (
                statistics.median_low([run["connections"] for run in runs])
                if args.stats_url and all(run["connections"] is not None for run in runs)
                else None
            ),
            "requests": (
                statistics.median_low([run["requests"] for run in runs])
                if args.stats_url and all(run.get("requests") is not None for run in runs)
                else None
            ),
            "details": runs,
        }


def main():
    parser = make_parser()
    segments = split_segments(sys.argv[1:])
    first = parser.parse_args(segments[0])
    measured = []
    for segment in segments:
        args = first if not measured else parser.parse_args(segment)
        entry = Measured(args, first)
        if not entry.command:
            parser.error(f"{args.name}: no command given (put it after --)")
        measured.append(entry)

    floor = run_once(["/bin/true"], argparse.Namespace(**{**vars(first), "fresh_dir": None, "stats_url": None}), None, 0)

    count = len(measured)
    for _ in range(first.warmup):
        for entry in measured:
            entry.run()
    for round_number in range(first.runs):
        for offset in range(count):
            entry = measured[(round_number + offset) % count]
            entry.runs.append(entry.run())

    lines = [json.dumps(entry.summary(floor)) for entry in measured]
    if first.output:
        with open(first.output, "w") as handle:
            handle.write("".join(line + "\n" for line in lines))
    for line in lines:
        print(line)
    return 0 if all(json.loads(line)["ok"] for line in lines) else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        # Die of SIGINT rather than exit 130, so that the calling shell stops too: bash goes on
        # after a child that exited normally on Ctrl-C, assuming the child handled it.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
