import FixtureServerKit
import Foundation
import PhotosCore
import PhotosProviders
import PhotosTestSupport
import Testing

/// The bash completion script sourced in a real, interactive bash (under tmux, typing Tab as a
/// person would) completes provider names and the ids of cached listings.
@Suite(.serialized) struct CompletionTests {
    static let tmux = findExecutable("tmux")
    static let bash = findExecutable("bash")

    @Test func theIdCompletionAnswersFromTheCacheWithoutTheNetwork() async throws {
        try await withServer { _, photos in
            let listed = try await photos.run(["list", "--provider", "placeholder", "--per-page", "5", "--no-thumbnails", "--format", "json"])
            try #require(listed.status == 0, "\(listed.stderr)")
            // No server needed from here: the endpoints point nowhere.
            let offline: [String: String?] = ["PHOTOS_PLACEHOLDER_API": "https://127.0.0.1:9", "SAP_SHELL": "bash"]
            let run = try await photos.run(["---completion", "show", "--", "positional@0", "2", "12", "photos", "show", "placeholder:"], environment: offline)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.split(separator: "\n").map(String.init) == (1...5).map { "placeholder:\($0)" })

            let zsh = try await photos.run(["---completion", "show", "--", "positional@0", "2", "13", "photos", "show", "placeholder:1"], environment: ["SAP_SHELL": "zsh"])
            #expect(zsh.stdout.hasPrefix("placeholder\\:1:"), "zsh reads id:description, the id's colon escaped: \(zsh.stdout)")
        }
    }

    @Test(.enabled(if: tmux != nil && bash != nil, "needs tmux and bash"))
    func bashCompletesProvidersAndCachedIds() async throws {
        let tmux = try #require(Self.tmux), bash = try #require(Self.bash)
        try await withServer { _, photos in
            let listed = try await photos.run(["list", "--provider", "placeholder", "--per-page", "3", "--no-thumbnails"])
            try #require(listed.status == 0, "\(listed.stderr)")
            let nasa = try await photos.run(["list", "--provider", "nasa", "--per-page", "5", "--no-thumbnails"])
            try #require(nasa.status == 0, "\(nasa.stderr)")
            let script = photos.home.appendingPathComponent("photos.bash")
            let generated = try await photos.run(["--generate-completion-script", "bash"])
            try generated.stdoutBytes.write(to: script)

            let socket = photos.home.appendingPathComponent("tmux.sock").path
            var environment = photos.environment
            environment["PATH"] = PhotosBinary.executable.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
            environment["TERM"] = "xterm"
            environment["LANG"] = "C.UTF-8"
            let tmuxArguments = ["-S", socket, "-f", "/dev/null"]
            let started = try spawnDaemonAndWait(
                tmux, tmuxArguments + ["new-session", "-d", "-x", "150", "-y", "20", "-s", "completion", "\(bash) --norc --noprofile"],
                environment: environment)
            try #require(started == 0, "tmux new-session failed")
            // kill-session, not kill-server (see TmuxGridTests); the server exits with its last session.
            defer { _ = try? spawnDaemonAndWait(tmux, tmuxArguments + ["kill-session", "-t", "completion"], environment: environment) }

            func type(_ keys: String...) throws {
                _ = try spawnDaemonAndWait(tmux, tmuxArguments + ["send-keys", "-t", "completion"] + keys, environment: environment)
            }
            /// The pane's non-empty lines once the last one satisfies `done` (or after 15 s).
            func lines(until done: (String) -> Bool) async throws -> [String] {
                var lines: [String] = []
                let deadline = Date().addingTimeInterval(15)
                while Date() < deadline {
                    let capture = try runTool(tmux, tmuxArguments + ["capture-pane", "-p", "-t", "completion"], environment: environment).stdout
                    lines = capture.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                    if let last = lines.last, done(last) { return lines }
                    try await Task.sleep(for: .milliseconds(50))
                }
                return lines
            }
            /// Types `text`, then Tab `tabs` times, then a marker, and returns the pane's lines
            /// once the marker shows; the line is then discarded (never run).
            func complete(_ text: String, tabs: Int) async throws -> [String] {
                try type(text)
                for _ in 0..<tabs { try type("Tab") }
                try type("#end")
                let result = try await lines { $0.hasSuffix("#end") }
                try type("C-u")
                _ = try await lines { $0 == "$" }
                return result
            }

            try type("PS1='$ '; source '\(script.path)'; echo sourced", "Enter")
            _ = try await lines { $0 == "$" }

            var screen = try await complete("photos list --provider pl", tabs: 1)
            #expect(screen.last == "$ photos list --provider placeholder #end", "\(screen)")

            screen = try await complete("photos list --provider ", tabs: 2)
            let providers = screen.dropLast().last ?? ""
            #expect(providers.split(separator: " ").map(String.init) == (ProviderRegistry.standard.names + ["all"]).sorted(), "\(screen)")

            // A comma list goes on with the providers it does not name yet.
            screen = try await complete("photos list --provider flickr,", tabs: 2)
            let rest: [String] = (screen.dropLast().last ?? "").split(separator: " ").map(String.init)
            let others: [String] = ProviderRegistry.standard.names.filter { $0 != "flickr" }.map { "flickr," + $0 }
            #expect(rest == others.sorted(), "\(screen)")
            screen = try await complete("photos cache clear --provider a", tabs: 1)
            #expect(screen.last == "$ photos cache clear --provider all #end", "clear takes all too: \(screen)")

            screen = try await complete("photos show placeholder:", tabs: 2)
            let ids = screen.dropLast().last ?? ""
            #expect(ids.split(separator: " ").map(String.init) == ["1", "2", "3"], "the cached ids, after placeholder: \(screen)")

            screen = try await complete("photos show placeholder:2", tabs: 1)
            #expect(screen.last == "$ photos show placeholder:2 #end", "a single id completes in full: \(screen)")

            // An id with spaces (NASA's ids may have them) is inserted quoted for the shell, so
            // that the command line runs as one argument.
            screen = try await complete("photos show nasa:Ap", tabs: 1)
            #expect(screen.last == "$ photos show nasa:Apollo\\ 11\\ Mission\\ Crew #end", "\(screen)")

            // The first Tab inserts what every cached id of a provider starts with, unescaped;
            // the second lists them.
            screen = try await complete("photos show pl", tabs: 2)
            #expect(screen.last == "$ photos show placeholder:#end", "\(screen)")
            #expect(screen.dropLast().last?.split(separator: " ").map(String.init) == ["1", "2", "3"], "\(screen)")
        }
    }
}
