// rusage-exec --report FILE -- COMMAND [ARGS...]
//
// Runs COMMAND, waits for it with wait4 and writes its resource usage to FILE as one JSON line:
// {"exit":N,"signal":N,"max_rss_kb":N,"user_us":N,"sys_us":N,"wall_us":N}. Exits with COMMAND's
// status. wall_us runs from just before fork to the return of wait4 (CLOCK_MONOTONIC), so it is the
// command's own start-to-exit time, without this program's start (a few ms) or its caller's.
//
// Why a separate program: Linux carries a process's peak RSS across execve, and Python's
// subprocess starts children with vfork, so a command started straight from measure.py reports
// at least the Python interpreter's own peak (~20 MB). This program touches only libc (a few MB
// at most, measured by the benchmark's `/bin/true` baseline), so the peak it reports is the command's.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func fail(_ message: String) -> Never {
    let text = "rusage-exec: \(message)\nusage: rusage-exec --report FILE -- COMMAND [ARGS...]\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    exit(64)
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3, arguments[0] == "--report", arguments[2] == "--" else { fail("bad arguments") }
let reportPath = arguments[1]
let command = Array(arguments[3...])
guard !command.isEmpty else { fail("no command") }

var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
func monotonicMicros() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int(now.tv_sec) * 1_000_000 + Int(now.tv_nsec) / 1_000
}
let started = monotonicMicros()
// fork, not posix_spawn: posix_spawn shares this process's memory with the child until execve,
// which would make this program's own peak the floor of the reported one. A forked child starts
// with only the few anonymous pages copied from here.
let pid = fork()
if pid == 0 {
    execvp(command[0], &argv)
    _exit(127)
}
guard pid > 0 else { fail("fork: \(String(cString: strerror(errno)))") }

var status: Int32 = 0
var usage = rusage()
while wait4(pid, &status, 0, &usage) < 0 {
    if errno != EINTR { fail("wait4: \(String(cString: strerror(errno)))") }
}
let wallMicros = monotonicMicros() - started
let signal = status & 0x7f
let code = signal == 0 ? (status >> 8) & 0xff : 128 + signal
func micros(_ time: timeval) -> Int { Int(time.tv_sec) * 1_000_000 + Int(time.tv_usec) }
let line = "{\"exit\":\(code),\"signal\":\(signal),\"max_rss_kb\":\(usage.ru_maxrss),"
    + "\"user_us\":\(micros(usage.ru_utime)),\"sys_us\":\(micros(usage.ru_stime)),\"wall_us\":\(wallMicros)}\n"
guard let file = fopen(reportPath, "w") else { fail("cannot write \(reportPath)") }
fputs(line, file)
fclose(file)
exit(code)
