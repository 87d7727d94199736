import FixtureServerKit
import Foundation
import PhotosTestSupport
import Synchronization
import Testing

/// `photos browse` as a person uses it: the built binary in a tmux pane against the fixture
/// server, keys sent with send-keys, the screen read with capture-pane. Every wait polls with a
/// generous deadline, so a loaded machine makes the tests slower, not red.
@Suite(.serialized) struct BrowseCommandTests {
    /// The listing requests the server saw: `_page` and `q` of each `/photos` request.
    final class ListingLog: Sendable {
        private let entries = Mutex<[(page: String, query: String?)]>([])

        /// A server configuration whose first route records the listing requests (and answers none).
        var configuration: FixtureServerConfiguration {
            var configuration = FixtureServerConfiguration()
            configuration.addRoute { [self] request in
                if request.path == "/photos" {
                    entries.withLock { $0.append((request.queryValue("_page") ?? "", request.queryValue("q"))) }
                }
                return nil
            }
            return configuration
        }

        var pages: [String] { entries.withLock { $0.map(\.page) } }
        var queries: [String?] { entries.withLock { $0.map(\.query) } }
        var count: Int { entries.withLock { $0.count } }
    }

    /// One run of `photos browse` in a pane: its exit status and stderr land in files.
    struct Browse {
        let pane: TmuxPane
        let status: URL
        let stderr: URL
        let shellPID: URL

        /// The exit status, once photos has exited.
        func exitStatus() -> Int32? {
            guard let text = try? String(contentsOf: status, encoding: .utf8) else { return nil }
            return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
        }

        func waitForExit() async throws -> Int32 {
            try await pane.waitFor("photos to exit") { exitStatus() }
        }

        var errorOutput: String { (try? String(contentsOf: stderr, encoding: .utf8)) ?? "" }

        /// The photos process: the child of the pane's shell.
        func photosPID() throws -> Int32 {
            let shell = try String(contentsOf: shellPID, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
            guard let pid = children.split(separator: " ").first.flatMap({ Int32($0) }) else { throw CocoaError(.fileNoSuchFile) }
            return pid
        }
    }

    static let counter = Mutex(0)

    /// Starts `photos browse ARGS` (or another `command`) in a `width` x `height` pane with
    /// `photos`' environment; stderr goes to a file unless `stderrOnScreen`.
    static func start(
        _ photos: PhotosBinary, _ arguments: [String], width: Int = 100, height: Int = 30, environment overrides: [String: String] = [:],
        command: String = "browse", stderrOnScreen: Bool = false
    ) throws -> Browse {
        let number = counter.withLock { value -> Int in
            value += 1
            return value
        }
        let folder = photos.home.appendingPathComponent("browse-\(number)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        func quote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        var environment = photos.environment
        environment.merge(overrides) { $1 }
        environment["LANG"] = "C.UTF-8"
        let status = folder.appendingPathComponent("status")
        let stderr = folder.appendingPathComponent("stderr")
        let shellPID = folder.appendingPathComponent("shell.pid")
        var script = "#!/bin/sh\n"
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) { script += "export \(name)=\(quote(value))\n" }
        script += "cd \(quote(folder.path))\n"
        script += "echo $$ > \(quote(shellPID.path))\n"
        script += ([PhotosBinary.executable.path, command] + arguments).map(quote).joined(separator: " ")
        script += stderrOnScreen ? "\n" : " 2> \(quote(stderr.path))\n"
        script += "echo $? > \(quote(status.path)).tmp && mv \(quote(status.path)).tmp \(quote(status.path))\n"
        script += "exec sleep 600\n"
        let scriptFile = folder.appendingPathComponent("browse.sh")
        try script.write(to: scriptFile, atomically: true, encoding: .utf8)
        let pane = try TmuxPane(command: "/bin/sh \(quote(scriptFile.path))", width: width, height: height, folder: folder)
        return Browse(pane: pane, status: status, stderr: stderr, shellPID: shellPID)
    }

    static func titles() throws -> [String] {
        try FixtureFiles.placeholderRecords().compactMap { $0["title"] as? String }
    }

    /// The status line (the pane's last line).
    static func statusLine(_ screen: String) -> String {
        screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).last { !$0.isEmpty } ?? ""
    }

    static func firstPage(_ screen: String) -> Bool { screen.contains("1/30 of 500") && screen.contains("accusamus beatae ad") }

    // MARK: Tests

    @Test(.enabled(if: TmuxPane.isAvailable, "needs tmux"))
    func theFirstPageShowsAndMovingPastItRequestsPageTwo() async throws {
        let log = ListingLog()
        try await withServer(log.configuration) { _, photos in
            let browse = try Self.start(photos, ["--provider", "placeholder", "--graphics", "symbols"])
            defer { browse.pane.kill() }
            let screen = try await browse.pane.waitForScreen("the first page", Self.firstPage)
            let titles = try Self.titles()
            #expect(screen.contains(String(titles[1].prefix(20))) && screen.contains(String(titles[2].prefix(20))))
            #expect(screen.contains("┌"), "the selected tile is framed")
            #expect(log.pages == ["1"], "one page until the selection nears its end")

            try browse.pane.send("End")
            try await browse.pane.waitFor("page 2 to be asked for") { log.pages.contains("2") ? true : nil }
            try await browse.pane.waitForScreen("page 2 on screen") { Self.statusLine($0).contains("/60 of 500") }
            #expect(log.pages == ["1", "2"])
            try browse.pane.send("q")
            #expect(try await browse.waitForExit() == 0)
        }
    }

    @Test(.enabled(if: TmuxPane.isAvailable, "needs tmux"))
    func enterShowsThePhotoAndEscapeReturnsToTheSamePlace() async throws {
        try await withServer { _, photos in
            let titles = try Self.titles()
            let browse = try Self.start(photos, ["--provider", "placeholder", "--graphics", "symbols"])
            defer { browse.pane.kill() }
            try await browse.pane.waitForScreen("the first page", Self.firstPage)
            // Two rows of tiles: the second Down scrolls a row (the terminal moves what is drawn).
            try browse.pane.send("Right")
            try browse.pane.send("Down")
            try browse.pane.send("Down")
            let grid = try await browse.pane.waitForScreen("the selection on photo 8, every thumbnail drawn") {
                Self.statusLine($0).contains("8/30") && !$0.contains("loading")
            }
            let colours = try browse.pane.run(["capture-pane", "-p", "-e", "-t", "photos"])

            try browse.pane.send("Enter")
            let detail = try await browse.pane.waitForScreen("the detail view") { $0.contains(titles[7]) && $0.contains("Esc back") }
            #expect(detail.contains("placeholder:8"))
            #expect(detail.contains("Title"))

            // Drawn anew, the grid is what scrolling made of it, colours included.
            try browse.pane.send("Escape")
            try await browse.pane.waitForScreen("the same grid again, at the same place") { $0 == grid }
            #expect(try browse.pane.run(["capture-pane", "-p", "-e", "-t", "photos"]) == colours)
            try browse.pane.send("q")
            #expect(try await browse.waitForExit() == 0)
        }
    }

    @Test(.enabled(if: TmuxPane.isAvailable, "needs tmux"))
    func aNewSearchChangesTheListingAndRefreshAsksTheNetworkAgain() async throws {
        let log = ListingLog()
        try await withServer(log.configuration) { _, photos in
            let browse = try Self.start(photos, ["--provider", "placeholder", "--graphics", "symbols"])
            defer { browse.pane.kill() }
            try await browse.pane.waitForScreen("the first page", Self.firstPage)

            try browse.pane.send("/")
            try await browse.pane.waitForScreen("the search field") { Self.statusLine($0).contains("Search:") }
            try browse.pane.type("dolorem")
            try browse.pane.send("Enter")
            let matching = try Self.titles().filter { $0.contains("dolorem") }
            let screen = try await browse.pane.waitForScreen("the new listing") {
                Self.statusLine($0).contains("“dolorem”") && Self.statusLine($0).contains("of \(matching.count)")
            }
            #expect(screen.contains(String(matching[0].prefix(20))))
            #expect(!screen.contains("accusamus beatae ad"))
            #expect(log.queries.last == "dolorem")

            let before = log.count
            try browse.pane.send("r")
            try await browse.pane.waitFor("the refresh to reach the server") { log.count > before ? true : nil }
            #expect(log.queries.last == "dolorem", "refresh asks for the same search")
            try await browse.pane.waitForScreen("the refreshed listing") { Self.statusLine($0).contains("“dolorem”") && !Self.statusLine($0).contains("loading page") }
            try browse.pane.send("q")
            #expect(try await browse.waitForExit() == 0)
        }
    }

    @Test(.enabled(if: TmuxPane.isAvailable, "needs tmux"))
    func aResizeLaysTheGridOutAgain() async throws {
        try await withServer { _, photos in
            let titles = try Self.titles()
            let browse = try Self.start(photos, ["--provider", "placeholder", "--graphics", "symbols"], width: 80, height: 24)
            defer { browse.pane.kill() }
            let small = try await browse.pane.waitForScreen("the first page", Self.firstPage)
            let row = { (screen: String, title: String) in screen.split(separator: "\n").firstIndex { $0.contains(title.prefix(12)) } }
            #expect(row(small, titles[3]) != row(small, titles[0]), "80 columns: three tiles a row")

            try browse.pane.resize(width: 160, height: 50)
            let wide = try await browse.pane.waitForScreen("four columns") { screen in
                row(screen, titles[3]) != nil && row(screen, titles[3]) == row(screen, titles[0])
            }
            #expect(Self.statusLine(wide).count > 100, "the status line spans the new width")
            try browse.pane.send("q")
            #expect(try await browse.waitForExit() == 0)
        }
    }

    @Test(.enabled(if: TmuxPane.isAvailable, "needs tmux"))
    func quitLeavesTheAlternateScreenWithTheCursorVisible() async throws {
        try await withServer { _, photos in
            let browse = try Self.start(photos, ["--provider", "placeholder", "--graphics", "symbols"])
            defer { browse.pane.kill() }
            try await browse.pane.waitForScreen("the first page", Self.firstPage)
            #expect(try browse.pane.display("#{alternate_on}") == "1")
            #expect(try browse.pane.display("#{cursor_flag}") == "0")
            try browse.pane.send("q")
            #expect(try await browse.waitForExit() == 0)
            #expect(try browse.pane.display("#{alternate_on}") == "0")
            #expect(try browse.pane.display("#{cursor_flag}") == "1")
            #expect(browse.errorOutput.isEmpty)
        }
    }

    @Test(.enabled(if: TmuxPane.isAvailable, "needs tmux"))
    func ctrlCLeavesTheSameWayWithExitStatus130() async throws {
        try await withServer { _, photos in
            let browse = try Self.start(photos, ["--provider", "placeholder", "--graphics", "symbols"])
            defer { browse.pane.kill() }
            try await browse.pane.waitForScreen("the first page", Self.firstPage)
            try browse.pane.send("C-c")
            #expect(try await browse.waitForExit() == 130)
            #expect(try browse.pane.display("#{alternate_on}") == "0")
            #expect(try browse.pane.display("#{cursor_flag}") == "1")
            #expect(browse.errorOutput.contains("interrupted"))
        }
    }

    @Test(.enabled(if: TmuxPane.isAvailable, "needs tmux"))
    func sigtermRestoresTheTerminalAndExits143() async throws {
        try await withServer { _, photos in
            let browse = try Self.start(photos, ["--provider", "placeholder", "--graphics", "symbols"])
            defer { browse.pane.kill() }
            try await browse.pane.waitForScreen("the first page", Self.firstPage)
            kill(try browse.photosPID(), SIGTERM)
            #expect(try await browse.waitForExit() == 143)
            #expect(try browse.pane.display("#{alternate_on}") == "0")
            #expect(try browse.pane.display("#{cursor_flag}") == "1")
        }
    }

    /// An interactive bash in a tmux pane, with photos' environment and job control, for
    /// running photos as a job of its: in the foreground, stopped, in the background.
    struct JobShell {
        let pane: TmuxPane
        let shellPID: URL

        static func quote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

        init(_ photos: PhotosBinary) async throws {
            let folder = photos.home.appendingPathComponent("job-control", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var script = "#!/bin/sh\n"
            for (name, value) in photos.environment.merging(["LANG": "C.UTF-8", "PS1": "ready$ "], uniquingKeysWith: { $1 }).sorted(by: { $0.key < $1.key }) {
                script += "export \(name)=\(Self.quote(value))\n"
            }
            shellPID = folder.appendingPathComponent("shell.pid")
            script += "echo $$ > \(Self.quote(shellPID.path))\nexec \(Self.quote(findExecutable("bash")!)) --norc --noprofile -i\n"
            let scriptFile = folder.appendingPathComponent("shell.sh")
            try script.write(to: scriptFile, atomically: true, encoding: .utf8)
            pane = try TmuxPane(command: "/bin/sh \(Self.quote(scriptFile.path))", width: 100, height: 30, folder: folder)
            try await pane.waitForScreen("the shell") { $0.contains("ready$") }
        }

        /// The browse command line, quoted for the shell.
        static let browse = [PhotosBinary.executable.path, "browse", "--provider", "placeholder", "--graphics", "symbols"].map(quote).joined(separator: " ")

        /// Types `line` and Enter.
        func run(_ line: String) throws {
            try pane.type(line)
            try pane.send("Enter")
        }

        /// The shell's child running photos.
        func photosPID() throws -> Int32 { try child(named: "photos") }

        /// The shell's (or `parent`'s) child whose program is `name` (not a `clear` before it).
        func child(named name: String, of parent: Int32? = nil) throws -> Int32 {
            let shell = try parent.map(String.init) ?? String(contentsOf: shellPID, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
            let named = children.split(separator: " ").compactMap { Int32($0) }.first { pid in
                (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) == name
            }
            guard let named else { throw CocoaError(.fileNoSuchFile) }  // not yet: polled
            return named
        }

        /// Whether `pid` has ended and waits for its shell to collect it.
        static func isZombie(_ pid: Int32) -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return false }
            return stat[stat.index(close, offsetBy: 2)] == "Z"
        }

        static func isStopped(_ pid: Int32) -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return false }
            return stat[stat.index(close, offsetBy: 2)] == "T"
        }

        /// Whether the terminal is in photos' raw mode, as `stty` says: signals off (`-isig`),
        /// which the shell's line editor, reading a line without icanon and echo, keeps on.
        func isInRawMode() throws -> Bool {
            let tty = try pane.display("#{pane_tty}")
            let stty = Process()
            stty.executableURL = URL(fileURLWithPath: "/bin/stty")
            stty.arguments = ["-a", "-F", tty]
            let output = Pipe()
            stty.standardOutput = output
            try stty.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            stty.waitUntilExit()
            return text.contains("-isig")
        }
    }

    /// Ctrl-Z stops the commands that do not watch for it, as it stops any program, whichever
    /// thread runs their work: a listing (on the main thread) and a save (on the pool) waiting
    /// on a slow server stop, and `fg` lets them finish.
    @Test(.enabled(if: TmuxPane.isAvailable && findExecutable("bash") != nil, "needs tmux and bash"))
    func ctrlZStopsAListingOrASaveAndFgLetsItFinish() async throws {
        try await withServer(FixtureServerConfiguration(latencyMilliseconds: 1500)) { _, photos in
            let shell = try await JobShell(photos)
            let pane = shell.pane
            defer { pane.kill() }
            let saved = photos.home.appendingPathComponent("saved").path
            let commands: [(name: String, arguments: [String], done: String)] = [
                ("list", ["list", "--provider", "placeholder", "--per-page", "3", "--refresh", "--no-thumbnails"], "placeholder:3"),
                ("save", ["save", "--provider", "placeholder", "--limit", "2", "--to", saved], "Saved 2"),
            ]
            for command in commands {
                try shell.run(([PhotosBinary.executable.path] + command.arguments).map(JobShell.quote).joined(separator: " "))
                let pid = try await pane.waitFor("\(command.name) started") { try? shell.photosPID() }
                try pane.send("C-z")
                try await pane.waitFor("\(command.name) stopped by Ctrl-Z") { JobShell.isStopped(pid) ? true : nil }
                try shell.run("fg")
                try await pane.waitForScreen("\(command.name) finished after fg") { $0.contains(command.done) }
            }
        }
    }

    /// Job control in a shell that has it: Ctrl-Z (a byte in raw mode) and `kill -TSTP` stop
    /// photos with the terminal given back to the shell; `fg` gives it to photos again, keys
    /// work at once. A signal that ends the process by default (SIGUSR1) leaves the terminal
    /// as it was too.
    @Test(.enabled(if: TmuxPane.isAvailable && findExecutable("bash") != nil, "needs tmux and bash"))
    func ctrlZStopsWithTheTerminalGivenBackAndFgTakesItAgain() async throws {
        try await withServer { _, photos in
            let shell = try await JobShell(photos)
            let pane = shell.pane
            defer { pane.kill() }
            let command = JobShell.browse
            try shell.run(command)
            try await pane.waitForScreen("the first page", Self.firstPage)
            func photosPID() throws -> Int32 { try shell.photosPID() }
            func isStopped(_ pid: Int32) -> Bool { JobShell.isStopped(pid) }
            let pid = try photosPID()

            for stop in ["Ctrl-Z", "SIGTSTP"] {
                if stop == "Ctrl-Z" { try pane.send("C-z") } else { kill(pid, SIGTSTP) }
                try await pane.waitFor("photos stopped by \(stop)") { isStopped(pid) ? true : nil }
                try await pane.waitFor("the shell's screen back after \(stop)") { try pane.display("#{alternate_on}") == "0" ? true : nil }
                #expect(try pane.display("#{cursor_flag}") == "1")
                try pane.type("fg")
                try pane.send("Enter")
                try await pane.waitForScreen("the grid again after fg (\(stop))") { Self.firstPage($0) }
                #expect(try pane.display("#{alternate_on}") == "1")
            }
            try pane.send("l")
            try await pane.waitForScreen("a key taken at once after fg") { Self.statusLine($0).contains("2/30 of 500") }

            kill(pid, SIGUSR1)
            // bash says how its job ended.
            try await pane.waitForScreen("the shell after SIGUSR1") { $0.contains("User defined signal 1") }
            #expect(try pane.display("#{alternate_on}") == "0" && pane.display("#{cursor_flag}") == "1")
            // The shell's own mode: what is typed is echoed, a line at a time.
            try pane.type("echo typed-\"back\"")
            try pane.send("Enter")
            try await pane.waitForScreen("the shell echoing and reading lines") { $0.contains("typed-back") }

            // Stopped, then ended from the shell (`kill %1` sends SIGTERM and SIGCONT): it ends,
            // rather than stopping again for touching a terminal that is no longer its own.
            try pane.type("clear; " + command)
            try pane.send("Enter")
            try await pane.waitForScreen("the first page again", Self.firstPage)
            let second = try photosPID()
            try pane.send("C-z")
            try await pane.waitFor("the second run stopped") { isStopped(second) ? true : nil }
            try pane.type("kill %1")
            try pane.send("Enter")
            try await pane.waitFor("the stopped run to end") { FileManager.default.fileExists(atPath: "/proc/\(second)") ? nil : true }
            #expect(try pane.display("#{alternate_on}") == "0")
        }
    }

    /// Started in the background (`&`), browse waits stopped, as a program that sets the
    /// terminal's modes from there is, and takes nothing from the shell; `fg` gives it the
    /// terminal. Continued in the background after Ctrl-Z (`bg`), its first read of a key typed
    /// at the shell stops it again, rather than ending it.
    @Test(.enabled(if: TmuxPane.isAvailable && findExecutable("bash") != nil && FileManager.default.isExecutableFile(atPath: "/bin/stty"), "needs tmux, bash and stty"))
    func inTheBackgroundBrowseWaitsStoppedUntilFg() async throws {
        try await withServer { _, photos in
            let shell = try await JobShell(photos)
            let pane = shell.pane
            defer { pane.kill() }
            try shell.run(JobShell.browse + " &")
            let pid = try await pane.waitFor("photos started") { try? shell.photosPID() }
            try await pane.waitFor("photos stopped in the background") { JobShell.isStopped(pid) ? true : nil }
            #expect(try pane.display("#{alternate_on}") == "0")
            #expect(try !shell.isInRawMode())
            try shell.run("echo still-\"the-shells\"")
            try await pane.waitForScreen("the shell reading lines") { $0.contains("still-the-shells") }

            try shell.run("fg")
            try await pane.waitForScreen("the grid after fg", Self.firstPage)
            #expect(try shell.isInRawMode())

            try pane.send("C-z")
            try await pane.waitFor("stopped by Ctrl-Z") { JobShell.isStopped(pid) ? true : nil }
            try shell.run("bg")
            try await pane.waitFor("running in the background") { JobShell.isStopped(pid) ? nil : true }
            // A line typed at the shell wakes browse's key reader, whose read from the background
            // stops it. The shell may take the keys before the reader looks (it then sleeps on):
            // a few lines, each given two seconds.
            var stoppedByARead = false
            for line in 1...5 where !stoppedByARead {
                try shell.run("echo typed-\"in-the-background-\(line)\"")
                try await pane.waitForScreen("the shell reading line \(line)") { $0.contains("typed-in-the-background-\(line)") }
                #expect(FileManager.default.fileExists(atPath: "/proc/\(pid)"), "browse ended at a key typed at the shell")
                let deadline = ContinuousClock.now + .seconds(2)
                while !stoppedByARead, ContinuousClock.now < deadline {
                    stoppedByARead = JobShell.isStopped(pid)
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            try await pane.waitFor("stopped by its read from the background") { JobShell.isStopped(pid) ? true : nil }
            #expect(try pane.display("#{alternate_on}") == "0")

            try shell.run("fg")
            try await pane.waitForScreen("the grid after the second fg", Self.firstPage)
            try pane.send("l")
            try await pane.waitForScreen("a key taken after fg") { Self.statusLine($0).contains("2/30 of 500") }
            try pane.send("q")
            try await pane.waitFor("photos to end") { FileManager.default.fileExists(atPath: "/proc/\(pid)") ? nil : true }
            try shell.run("echo exit-status-$?")
            try await pane.waitForScreen("photos' exit status") { $0.contains("exit-status-0") }

            // Waiting stopped in the background, it ends at `kill %1` (SIGTERM, then SIGCONT)
            // rather than stopping again.
            try shell.run("clear; " + JobShell.browse + " &")
            let waiting = try await pane.waitFor("photos started again") { try? shell.photosPID() }
            try await pane.waitFor("stopped in the background again") { JobShell.isStopped(waiting) ? true : nil }
            try shell.run("kill %1")
            try await pane.waitFor("the stopped browse to end at kill %1") { FileManager.default.fileExists(atPath: "/proc/\(waiting)") ? nil : true }

            // Run by a script in the background: the script is in photos' process group, and its
            // shell above it has job control, so photos waits stopped, as it does alone.
            try shell.run("clear; sh -c \(JobShell.quote(JobShell.browse + "; echo script-saw-$?")) &")
            let script = try await pane.waitFor("the script started") { try? shell.child(named: "sh") }
            let browse = try await pane.waitFor("photos under the script") { try? shell.child(named: "photos", of: script) }
            try await pane.waitFor("photos under the script stopped") { JobShell.isStopped(browse) ? true : nil }
            try shell.run("fg")
            try await pane.waitForScreen("the grid after fg of the script", Self.firstPage)
            try pane.send("q")
            try await pane.waitForScreen("the script's photos ended with 0") { $0.contains("script-saw-0") }
        }
    }

    /// A save run in the background (`&`) draws no progress over the shell's line, where the
    /// user types; the same save in the foreground draws its bar (what the first half would see).
    @Test(.enabled(if: TmuxPane.isAvailable && findExecutable("bash") != nil, "needs tmux and bash"))
    func inTheBackgroundNoProgressIsDrawnOverTheShell() async throws {
        try await withServer(FixtureServerConfiguration(latencyMilliseconds: 150)) { _, photos in
            let shell = try await JobShell(photos)
            let pane = shell.pane
            defer { pane.kill() }
            /// Runs a save of 120 photos into `name`, and returns the screens seen while it ran
            /// that showed a progress bar.
            func save(into name: String, background: Bool) async throws -> [String] {
                let folder = photos.home.appendingPathComponent(name)
                let command = [PhotosBinary.executable.path, "save", "--provider", "placeholder", "--limit", "120", "--to", folder.path]
                try shell.run("clear; " + command.map(JobShell.quote).joined(separator: " ") + (background ? " &" : ""))
                let pid = try await pane.waitFor("photos started") { try? shell.photosPID() }
                var drawn: [String] = []
                while FileManager.default.fileExists(atPath: "/proc/\(pid)"), !JobShell.isZombie(pid) {
                    let screen = try pane.capture()
                    if screen.contains("Saving") || screen.contains("░") { drawn.append(screen) }
                    try await Task.sleep(for: .milliseconds(10))
                }
                let files = (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String]) ?? []
                let saved = files.filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }
                #expect(saved.count == 120, "\(name): \(files.prefix(5))")
                return drawn
            }
            let foreground = try await save(into: "foreground", background: false)
            #expect(!foreground.isEmpty, "a save in the foreground draws its progress")
            let background = try await save(into: "background", background: true)
            #expect(background.isEmpty, "\(background.first ?? "")")
        }
    }

    @Test(.enabled(if: TmuxPane.isAvailable, "needs tmux"))
    func offlineBrowsesTheCacheAndAFailingNetworkFallsBackToIt() async throws {
        try await withServer { _, photos in
            // A server process of its own, stopped later: the same endpoint, no longer answering
            // (pages cached from one endpoint are not served for another).
            let own = Process()
            own.executableURL = PhotosBinary.executable.deletingLastPathComponent().appendingPathComponent("photos-fixture-server")
            own.arguments = ["--port", "0"]
            let ready = Pipe()
            own.standardOutput = ready
            try own.run()
            defer { if own.isRunning { own.terminate() } }
            let line = String(decoding: ready.fileHandleForReading.availableData, as: UTF8.self)
            let url = try #require((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["url"] as? String, "\(line)")
            let environment = ["PHOTOS_PLACEHOLDER_API": url]
            let first = try Self.start(photos, ["--provider", "placeholder", "--graphics", "symbols"], environment: environment)
            defer { first.pane.kill() }
            try await first.pane.waitForScreen("the first page", Self.firstPage)
            try first.pane.send("q")
            #expect(try await first.waitForExit() == 0)

            let offline = try Self.start(photos, ["--provider", "placeholder", "--graphics", "symbols", "--offline"], environment: environment)
            defer { offline.pane.kill() }
            let screen = try await offline.pane.waitForScreen("the cached page", Self.firstPage)
            #expect(Self.statusLine(screen).contains("offline"))
            try offline.pane.send("q")
            #expect(try await offline.waitForExit() == 0)

            // The server is gone: the refresh fails and the cached page stays, said so.
            own.terminate()
            own.waitUntilExit()
            let unreachable = try Self.start(photos, ["--provider", "placeholder", "--graphics", "symbols"], width: 200, environment: environment)
            defer { unreachable.pane.kill() }
            try await unreachable.pane.waitForScreen("the cached page", Self.firstPage)
            try unreachable.pane.send("r")
            let fallback = try await unreachable.pane.waitForScreen("the fallback") { Self.statusLine($0).contains("network failed") }
            #expect(Self.firstPage(fallback))
            try unreachable.pane.send("q")
            #expect(try await unreachable.waitForExit() == 0)
        }
    }

    @Test(.enabled(if: TmuxPane.isAvailable, "needs tmux"))
    func openRunsTheViewerAndSaveCopiesTheFullImageIntoTheSaveFolder() async throws {
        try await withServer { _, photos in
            let opened = photos.home.appendingPathComponent("opened.txt")
            let opener = photos.home.appendingPathComponent("viewer.sh")
            try "#!/bin/sh\necho \"$1\" > '\(opened.path)'\n".write(to: opener, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: opener.path)
            let saves = photos.home.appendingPathComponent("saved pictures")
            let config = photos.home.appendingPathComponent("config.toml")
            try "[save]\ndir = \"\(saves.path)\"\n".write(to: config, atomically: true, encoding: .utf8)

            let browse = try Self.start(
                photos, ["--provider", "placeholder", "--graphics", "symbols"], width: 160,
                environment: ["PHOTOS_OPENER": opener.path, "PHOTOS_CONFIG": config.path])
            defer { browse.pane.kill() }
            try await browse.pane.waitForScreen("the first page", Self.firstPage)

            try browse.pane.send("s")
            let saved = try await browse.pane.waitFor("the saved file") { () -> String? in
                let names = (try? FileManager.default.contentsOfDirectory(atPath: saves.appendingPathComponent("placeholder").path)) ?? []
                return names.first { !$0.hasSuffix(".part") }
            }
            #expect(saved == "placeholder_1.jpg", "the name photos save gives by default")
            let savedFile = saves.appendingPathComponent("placeholder").appendingPathComponent(saved)
            #expect(((try? FileManager.default.attributesOfItem(atPath: savedFile.path)[.size] as? Int) ?? 0) > 0)
            try await browse.pane.waitForScreen("the status line saying so") { Self.statusLine($0).contains("saved") }
            let again = try await photos.run(["save", "placeholder:1", "--to", saves.path, "--format", "json"])
            #expect(try again.json()["skipped"] as? Int == 1, "photos save finds what browse saved: \(again.stdout)")
            // Readable as any file photos save writes, not private as the cache's copy.
            #expect(try await photos.run(["save", "placeholder:2", "--to", saves.path]).status == 0)
            func mode(_ name: String) throws -> Int? {
                try FileManager.default.attributesOfItem(atPath: saves.appendingPathComponent("placeholder/" + name).path)[.posixPermissions] as? Int
            }
            #expect(try mode(saved) == (try mode("placeholder_2.jpg")), "browse's file has the mode of save's")

            try browse.pane.send("o")
            let path = try await browse.pane.waitFor("the viewer to run") { () -> String? in
                (try? String(contentsOf: opened, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines).nonEmpty
            }
            #expect(FileManager.default.fileExists(atPath: path), "the viewer gets the cached full image")
            try await browse.pane.waitForScreen("the status line saying so") { Self.statusLine($0).contains("opened with viewer.sh") }
            try browse.pane.send("q")
            #expect(try await browse.waitForExit() == 0)
        }
    }

    /// The full image `o` fetched online is the one `o` opens offline: the photo's sizes (its
    /// original among them, which no listing names) are kept with it.
    @Test(.enabled(if: TmuxPane.isAvailable, "needs tmux"))
    func offlineOpenFindsTheFullImageOpenedOnline() async throws {
        try await withServer { _, photos in
            let opened = photos.home.appendingPathComponent("opened.txt")
            let opener = photos.home.appendingPathComponent("viewer.sh")
            try "#!/bin/sh\necho \"$1\" > '\(opened.path)'\n".write(to: opener, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: opener.path)
            var paths: [String] = []
            for offline in [false, true] {
                try? FileManager.default.removeItem(at: opened)
                let browse = try Self.start(
                    photos, ["--provider", "flickr", "--query", "dogs", "--graphics", "none"] + (offline ? ["--offline"] : []), width: 160,
                    environment: ["PHOTOS_OPENER": opener.path])
                defer { browse.pane.kill() }
                let first = try await browse.pane.waitForScreen("the first page\(offline ? " offline" : "")") { Self.statusLine($0).contains("1/") }
                if !offline {
                    // The fixture's search holds a record no photo can be made of: said, as list says it.
                    #expect(Self.statusLine(first).contains("flickr: 1 record could not be read and was skipped"), "\(Self.statusLine(first))")
                }
                try browse.pane.send("o")
                paths.append(try await browse.pane.waitFor("the viewer to run\(offline ? " offline" : "")") { () -> String? in
                    (try? String(contentsOf: opened, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines).nonEmpty
                })
                try browse.pane.send("q")
                #expect(try await browse.waitForExit() == 0)
                if !offline {
                    // Said again once the screen is back, as the status line's other warnings are.
                    let said = try String(contentsOf: browse.stderr, encoding: .utf8)
                    #expect(said.contains("photos: warning: flickr: 1 record could not be read and was skipped"), "\(said)")
                }
            }
            #expect(paths.count == 2 && paths[0] == paths[1], "\(paths)")
        }
    }

    /// A provider that fails while the others answer: browsing goes on with the others to their
    /// end ("end of results", the dead host asked no more), and the failure is said again once
    /// the screen is back, as `list` says it (it was shown only in the status line, and the
    /// dead host was asked for every next page, so the results never ended).
    @Test(.enabled(if: TmuxPane.isAvailable, "needs tmux"))
    func aProviderThatFailsIsSaidAfterAndEndsItsPart() async throws {
        try await withServer { _, photos in
            let browse = try Self.start(
                photos, ["--provider", "flickr,nasa", "--query", "dogs", "--graphics", "none"], width: 160,
                environment: ["PHOTOS_NASA_API": "https://127.0.0.1:1/nasa"])
            defer { browse.pane.kill() }
            _ = try await browse.pane.waitForScreen("the first page") { Self.statusLine($0).contains("1/") }
            // To the last photo, again as pages arrive, until the results end (or 60 s pass).
            var last = ""
            let deadline = Date().addingTimeInterval(60)
            while !last.contains("end of results"), Date() < deadline {
                try browse.pane.send("G")
                last = Self.statusLine(try await browse.pane.waitForScreen("a move") { !Self.statusLine($0).isEmpty })
                if !last.contains("end of results") { try await Task.sleep(for: .milliseconds(200)) }
            }
            #expect(last.contains("end of results"), "\(last)")
            try browse.pane.send("q")
            #expect(try await browse.waitForExit() == 0)
            let said = try String(contentsOf: browse.stderr, encoding: .utf8)
            #expect(said.contains("photos: warning: nasa failed, browsing the others: "), "\(said)")
        }
    }

    /// Enter over a slow network says the detail is being asked for, until it arrives (the
    /// status line showed nothing for the seconds it took).
    @Test(.enabled(if: TmuxPane.isAvailable, "needs tmux"))
    func aDetailOnItsWaySaysSo() async throws {
        try await withServer(FixtureServerConfiguration(latencyMilliseconds: 1_000)) { _, photos in
            let browse = try Self.start(photos, ["--provider", "flickr", "--query", "dogs", "--graphics", "none"], width: 120)
            defer { browse.pane.kill() }
            _ = try await browse.pane.waitForScreen("the first page") { Self.statusLine($0).contains("1/") }
            try browse.pane.send("Enter")
            _ = try await browse.pane.waitForScreen("the detail asked for") { Self.statusLine($0).contains("loading details…") }
            _ = try await browse.pane.waitForScreen("the detail arrived") { !Self.statusLine($0).contains("loading details…") }
            try browse.pane.send("q")
            #expect(try await browse.waitForExit() == 0)
        }
    }

    /// `--provider all` is named as that in the status line, which five names took 41 columns of.
    @Test(.enabled(if: TmuxPane.isAvailable, "needs tmux"))
    func everyProviderIsNamedAllInTheStatusLine() async throws {
        try await withServer { _, photos in
            let browse = try Self.start(photos, ["--provider", "all", "--query", "dogs", "--graphics", "none"], width: 120)
            defer { browse.pane.kill() }
            let screen = try await browse.pane.waitForScreen("the first page") { Self.statusLine($0).contains("1/") }
            let status = Self.statusLine(screen)
            #expect(status.hasPrefix(" all “dogs”") && !status.contains("flickr,"), "\(status)")
            try browse.pane.send("q")
            #expect(try await browse.waitForExit() == 0)
        }
    }

    /// A save folder that cannot be made names itself and the setting; a viewer that fails says
    /// so, rather than "opened".
    @Test(.enabled(if: TmuxPane.isAvailable, "needs tmux"))
    func aSaveFolderOrAViewerThatFailsSaysSo() async throws {
        try await withServer { _, photos in
            let file = photos.home.appendingPathComponent("a-file")
            try Data("x".utf8).write(to: file)
            let browse = try Self.start(
                photos, ["--provider", "placeholder", "--graphics", "symbols"], width: 240,
                environment: ["PHOTOS_SAVE_DIR": file.path, "PHOTOS_OPENER": "/bin/false"])
            defer { browse.pane.kill() }
            try await browse.pane.waitForScreen("the first page", Self.firstPage)
            try browse.pane.send("s")
            let saving = try await browse.pane.waitForScreen("the save to fail", timeout: .seconds(30)) { Self.statusLine($0).contains("could not save") }
            let line = Self.statusLine(saving)
            #expect(line.contains("cannot write \(file.path)/placeholder") && line.contains("set PHOTOS_SAVE_DIR or [save] dir"), "\(line)")
            try browse.pane.send("o")
            let opening = try await browse.pane.waitForScreen("the viewer's failure", timeout: .seconds(30)) {
                Self.statusLine($0).contains("false exited with status 1")
            }
            #expect(Self.statusLine(opening).contains("the image is at /"), "\(Self.statusLine(opening))")
            try browse.pane.send("q")
            #expect(try await browse.waitForExit() == 0)
            // Said again, whole, once the screen is back: the status line lost it at the next key.
            #expect(browse.errorOutput.contains("photos: warning: placeholder:1: could not save: cannot write \(file.path)/placeholder"), "\(browse.errorOutput)")
        }
    }

    /// A warning said while browse owns the screen (here: the cache folder is a file) is shown
    /// in the status line rather than written over the grid, and printed once the screen is back.
    @Test(.enabled(if: TmuxPane.isAvailable, "needs tmux"))
    func aWarningDuringBrowseShowsInTheStatusLineAndIsPrintedAfter() async throws {
        try await withServer { _, photos in
            let file = photos.home.appendingPathComponent("not-a-folder")
            try Data("x".utf8).write(to: file)
            let browse = try Self.start(photos, ["--provider", "placeholder", "--graphics", "symbols"], environment: ["PHOTOS_CACHE_DIR": file.path])
            defer { browse.pane.kill() }
            let screen = try await browse.pane.waitForScreen("the warning in the status line", timeout: .seconds(30)) {
                Self.statusLine($0).contains("warning: the cache folder")
            }
            #expect(!screen.contains("photos: warning"), "said in the status line, not written raw: \(screen)")
            #expect(browse.errorOutput.isEmpty, "held while the screen is browse's: \(browse.errorOutput)")
            try browse.pane.send("q")
            #expect(try await browse.waitForExit() == 0)
            #expect(browse.errorOutput.contains("photos: warning: the cache folder \(file.path) is a file, not a folder"), "\(browse.errorOutput)")
        }
    }

    /// Several providers browsed together: the total is theirs together, known only when each
    /// says its own, also after some have run out of pages (it was then the last one's alone).
    @Test(.enabled(if: TmuxPane.isAvailable, "needs tmux"))
    func theTotalOfSeveralProvidersIsNeverOneProvidersAlone() async throws {
        try await withServer { _, photos in
            let browse = try Self.start(photos, ["--query", "dogs", "--graphics", "symbols"], width: 120)
            defer { browse.pane.kill() }
            try await browse.pane.waitForScreen("the first page", timeout: .seconds(60)) { Self.statusLine($0).contains("1/") }
            var lines: [String] = []
            for _ in 0..<8 {
                try browse.pane.send("End")
                let screen = try await browse.pane.waitForScreen("the end reached or loaded", timeout: .seconds(60)) { !$0.contains("loading") }
                lines.append(Self.statusLine(screen))
                if lines.last?.contains("end of results") == true { break }
            }
            #expect(lines.last?.contains("end of results") == true, "\(lines)")
            #expect(!lines.contains { $0.contains(" of 28") }, "Flickr's 28 is not everyone's total: \(lines)")
            try browse.pane.send("q")
            #expect(try await browse.waitForExit() == 0)
        }
    }

    /// A provider named without its API key fails before the screen is taken, as list does.
    @Test(.enabled(if: TmuxPane.isAvailable, "needs tmux"))
    func aProviderWithoutItsKeyFailsBeforeTheScreenIsTaken() async throws {
        try await withServer { _, photos in
            let browse = try Self.start(photos, ["--provider", "flickr"], environment: ["FLICKR_API_KEY": ""])
            defer { browse.pane.kill() }
            #expect(try await browse.waitForExit() == 77)
            #expect(browse.errorOutput.contains("photos: error: flickr: it needs FLICKR_API_KEY to be set"), "\(browse.errorOutput)")
        }
    }

    /// On a terminal, a listing slow to come says what it waits for, and the line is gone once
    /// the table is printed.
    @Test(.enabled(if: TmuxPane.isAvailable, "needs tmux"))
    func aSlowListingSaysWhatItWaitsForAndClearsTheLine() async throws {
        try await withServer(FixtureServerConfiguration(latencyMilliseconds: 2000)) { _, photos in
            let list = try Self.start(
                photos, ["--provider", "flickr", "--query", "many", "--per-page", "3", "--no-thumbnails"], width: 120,
                command: "list", stderrOnScreen: true)
            defer { list.pane.kill() }
            try await list.pane.waitForScreen("the waiting line", timeout: .seconds(30)) { $0.contains("Waiting for flickr…") }
            #expect(try await list.waitForExit() == 0)
            let screen = try list.pane.capture()
            #expect(screen.contains("flickr:5300000003") && !screen.contains("Waiting for"), "\(screen)")
            let table = screen.split(separator: "\n").first { $0.contains("ID") && $0.contains("TITLE") } ?? ""
            #expect(table.hasPrefix("ID"), "the table starts its own line: \(table)")
        }
    }

    /// Once the listing is in, the waiting line is gone while its thumbnails come (their
    /// progress is drawn there): it stayed, drawn again every second, until they had come.
    @Test(.enabled(if: TmuxPane.isAvailable, "needs tmux"))
    func theWaitingLineEndsWithTheListingNotWithItsThumbnails() async throws {
        // 1.5 s per answer: the line shows at 0.7 s, the listing comes at 1.5 s and its
        // thumbnails are asked for at once, to come at 3 s.
        try await withServer(FixtureServerConfiguration(latencyMilliseconds: 1500)) { server, photos in
            let list = try Self.start(photos, ["--provider", "placeholder", "--per-page", "3"], width: 120, command: "list", stderrOnScreen: true)
            defer { list.pane.kill() }
            var before: [String] = [], after: [String] = []
            var thumbnailsAskedAt: ContinuousClock.Instant?
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                let asked = server.stats().requests > 1
                let screen = try list.pane.capture()
                if screen.contains("placeholder:3") { break }
                if asked, thumbnailsAskedAt == nil { thumbnailsAskedAt = .now }
                // A moment for the line to be cleared once the listing is in.
                if let at = thumbnailsAskedAt, ContinuousClock.now - at > .milliseconds(200) { after.append(screen) } else if !asked { before.append(screen) }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(before.contains { $0.contains("Waiting for placeholder…") }, "the line was drawn while the listing came")
            #expect(!after.isEmpty, "screens while the thumbnails came")
            #expect(!after.contains { $0.contains("Waiting for") }, "\(after.first { $0.contains("Waiting for") } ?? "")")
            #expect(try await list.waitForExit() == 0)
        }
    }

    /// The waiting line in a terminal narrower than it: cut to fit, and gone once the listing
    /// is in (a wrapped line's first row stayed on the screen).
    @Test(.enabled(if: TmuxPane.isAvailable, "needs tmux"))
    func theWaitingLineFitsANarrowTerminal() async throws {
        try await withServer(FixtureServerConfiguration(latencyMilliseconds: 2000)) { _, photos in
            let list = try Self.start(
                photos, ["--provider", "flickr,placeholder", "--query", "many", "--per-page", "3", "--no-thumbnails"],
                width: 24, height: 60, command: "list", stderrOnScreen: true)
            defer { list.pane.kill() }
            try await list.pane.waitForScreen("the waiting line", timeout: .seconds(30)) { $0.contains("Waiting for") }
            #expect(try await list.waitForExit() == 0)
            let screen = try list.pane.capture()
            #expect(screen.contains("ID") && !screen.contains("Waiting"), "\(screen)")
        }
    }

    /// A terminal whose TERM is dumb, or empty (a type unknown), is named as the reason, not
    /// taken for no terminal at all.
    @Test(.enabled(if: TmuxPane.isAvailable, "needs tmux"), arguments: [("dumb", "TERM=dumb says this one cannot"), ("", "TERM is not set")])
    func aDumbTerminalIsSaidToBeTheReason(term: String, reason: String) async throws {
        try await withServer { _, photos in
            let browse = try Self.start(photos, ["--provider", "placeholder"], environment: ["TERM": term])
            defer { browse.pane.kill() }
            #expect(try await browse.waitForExit() == 64)
            #expect(browse.errorOutput.contains(reason), "\(browse.errorOutput)")
        }
    }

    /// A browse that had nothing to show but a failure says it again once the screen is back,
    /// and exits as `list` does for it (69), not 0 with nothing said.
    @Test(.enabled(if: TmuxPane.isAvailable, "needs tmux"))
    func nothingToShowButAFailureIsSaidAfterwardsWithItsExitStatus() async throws {
        try await withServer { _, photos in
            let browse = try Self.start(photos, ["--provider", "nasa", "--offline", "--graphics", "symbols"])
            defer { browse.pane.kill() }
            try await browse.pane.waitForScreen("the failure in the status line") { Self.statusLine($0).contains("nothing cached") }
            try browse.pane.send("q")
            #expect(try await browse.waitForExit() == 69)
            #expect(browse.errorOutput.contains("offline and nothing cached for nasa"), "\(browse.errorOutput)")
        }
    }

    /// `list`'s progress line in a terminal narrower than its bar: it fits, and when the list
    /// is out nothing of it is left on the screen (a wrapped line's first row stayed).
    @Test(.enabled(if: TmuxPane.isAvailable, "needs tmux"))
    func aProgressLineInANarrowTerminalLeavesNothingBehind() async throws {
        try await withServer(FixtureServerConfiguration(latencyMilliseconds: 20)) { _, photos in
            let list = try Self.start(
                photos, ["--provider", "placeholder", "--per-page", "3", "--format", "jsonl"], width: 30, height: 60, command: "list", stderrOnScreen: true)
            defer { list.pane.kill() }
            #expect(try await list.waitForExit() == 0)
            let screen = try list.pane.capture()
            #expect(screen.contains("placeholder"), "\(screen)")
            #expect(!screen.contains("█") && !screen.contains("░") && !screen.contains("Thumbnails"), "\(screen)")
        }
    }

    /// Ids typed into `save -` at a terminal stay on the screen: the progress line is redrawn
    /// between photos only while bytes arrive (it was redrawn four times a second from the
    /// start, wiping what was typed).
    @Test(.enabled(if: TmuxPane.isAvailable, "needs tmux"))
    func idsTypedIntoSaveStayOnTheScreen() async throws {
        try await withServer { _, photos in
            let save = try Self.start(photos, ["-", "--to", "saved"], command: "save", stderrOnScreen: true)
            defer { save.pane.kill() }
            try save.pane.type("placeholder:")
            try await save.pane.waitForScreen("the id being typed") { $0.contains("placeholder:") }
            // Four redraws' time: nothing arrives, so nothing is drawn over it.
            try await Task.sleep(for: .seconds(1))
            let screen = try save.pane.capture()
            #expect(screen.contains("placeholder:") && !screen.contains("Saving"), "\(screen)")
            try save.pane.type("2")
            try save.pane.send("Enter", "C-d")
            #expect(try await save.waitForExit() == 0)
            #expect(try save.pane.capture().contains("Saved 1 photo"))
        }
    }

    @Test func withoutATerminalBrowseExits64AndSuggestsTheGrid() async throws {
        try await withServer { _, photos in
            let run = try await photos.run(["browse", "--provider", "placeholder"])
            #expect(run.status == 64)
            #expect(run.stderr.contains("photos list --format grid"))
            #expect(run.stdout.isEmpty)
        }
    }
}

extension String {
    /// The text, or nil when it is empty: a file a viewer's `>` made and `echo` has not filled
    /// yet names no path.
    var nonEmpty: String? { isEmpty ? nil : self }
}
