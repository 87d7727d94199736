import FixtureServerKit
import Foundation
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
            let started = Date()
            let run = try await photos.run(["---completion", "show", "--", "positional@0", "2", "12", "photos", "show", "placeholder:"], environment: offline)
            let elapsed = Date().timeIntervalSince(started)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.split(separator: "\n").map(String.init) == (1...5).map { "placeholder:\($0)" })
            // Generous: well under 50 ms on an idle machine; CI's two cores are busy with other tests.
            #expect(elapsed < 2, "took \(elapsed) s")

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
            let script = photos.home.appendingPathComponent("photos.bash")
            let generated = try await photos.run(["--generate-completion-script", "bash"])
            try generated.stdoutBytes.write(to: script)

            let socket = photos.home.appendingPathComponent("tmux.sock").path
            var environment = photos.environment
            environment["PATH"] = PhotosBinary.executable.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
            environment["TERM"] = "xterm"
            environment["LANG"] = "C.UTF-8"
            let tmuxArguments = ["-S", socket, "-f", "/dev/null"]
            let started = try runTool(
                tmux, tmuxArguments + ["new-session", "-d", "-x", "150", "-y", "20", "-s", "completion", "\(bash) --norc --noprofile"],
                environment: environment)
            try #require(started.status == 0, "tmux: \(started.stderr)")
            defer { _ = try? runTool(tmux, tmuxArguments + ["kill-session", "-t", "completion"], environment: environment) }

            func type(_ keys: String...) throws {
                _ = try runTool(tmux, tmuxArguments + ["send-keys", "-t", "completion"] + keys, environment: environment)
            }
            /// Waits until the pane's last non-empty lines contain `text`.
            func screen(containing text: String) async throws -> String {
                var capture = ""
                let deadline = Date().addingTimeInterval(15)
                while Date() < deadline {
                    capture = try runTool(tmux, tmuxArguments + ["capture-pane", "-p", "-t", "completion"], environment: environment).stdout
                    if capture.contains(text) { return capture }
                    try await Task.sleep(for: .milliseconds(50))
                }
                return capture
            }

            try type("PS1='$ '; source '\(script.path)'; echo sourced", "Enter")
            _ = try await screen(containing: "\nsourced")
            try type("clear", "Enter")

            try type("photos list --provider pl", "Tab")
            var capture = try await screen(containing: "--provider placeholder")
            #expect(capture.contains("$ photos list --provider placeholder"), "\(capture)")

            try type("C-u", "clear", "Enter")
            try type("photos list --provider ", "Tab", "Tab")
            capture = try await screen(containing: "all")
            #expect(capture.contains("flickr") && capture.contains("placeholder") && capture.contains("all"), "\(capture)")

            try type("C-u", "clear", "Enter")
            try type("photos show placeholder:", "Tab", "Tab")
            capture = try await screen(containing: "3")
            let candidates = capture.split(separator: "\n").first { $0.contains("1") && $0.contains("2") && $0.contains("3") && !$0.contains("$") }
            #expect(candidates != nil, "the cached ids 1, 2 and 3 are offered after placeholder: \(capture)")

            try type("C-u", "clear", "Enter")
            try type("photos show placeholder:2", "Tab")
            capture = try await screen(containing: "placeholder:2 ")
            #expect(capture.contains("$ photos show placeholder:2 "), "a single id completes in full: \(capture)")
        }
    }
}
