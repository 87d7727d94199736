import ArgumentParser
import PhotosTerminal

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension PhotosCommand {
    /// Runs the command on the calling thread, the process's main thread
    /// (``MainThreadExecutor``), and leaves with its exit code.
    public static func mainAndExit() -> Never {
        let executor = MainThreadExecutor.shared
        Task.detached(executorPreference: executor) { await runAndExit() }
        executor.run()
    }

    /// Parses the arguments, runs the command and leaves with its exit code.
    ///
    /// Leaves with `_exit` once stdio is flushed: every command has closed its cache and
    /// stopped its transport by then, and exit handlers (libcrypto's among them) have nothing
    /// left to do but race a thread libcurl may still be winding down.
    public static func runAndExit(_ arguments: [String]? = nil) async -> Never {
        var code: Int32
        ExitTeardown.skip()
        do {
            if let request = ListFastPath.request(arguments ?? Array(CommandLine.arguments.dropFirst())) {
                try await List.run(request)
            } else {
                let given = arguments ?? Array(CommandLine.arguments.dropFirst())
                if let mistake = CommandSuggestion.error(for: given) ?? RepeatedOption.error(for: given) {
                    Output.writeAll("photos: error: \(mistake)\n", to: STDERR_FILENO)
                    _exit(64)
                }
                var command = try parseAsRoot(arguments)
                if var command = command as? any AsyncParsableCommand {
                    try await command.run()
                } else {
                    try command.run()
                }
            }
            code = 0
        } catch {
            var message = fullMessage(for: error)
            let exitCode = exitCode(for: error)
            // The parser's usage errors in photos' own words, as every other error is said.
            if message.hasPrefix("Error: ") { message = "photos: error: " + message.dropFirst("Error: ".count) }
            message = Self.explainingValue(message, arguments: arguments ?? Array(CommandLine.arguments.dropFirst()))
            // The parser quotes arguments as typed: an escape sequence in one is written out.
            if exitCode != .success { message = TerminalText.escapingControls(message) }
            if !message.isEmpty {
                if exitCode == .success {
                    Output.exitIfStandardOutputWasClosed()  // help asked for, with nowhere to print it
                    print(message)
                } else {
                    Output.writeAll(message + "\n", to: STDERR_FILENO)
                }
            }
            code = exitCode.rawValue
        }
        // Every stdio stream: print() buffers (help, for one). Help that could not be written is
        // an error as any output is (74); a reader that has gone is not.
        if fflush(nil) != 0, errno != EPIPE, code == 0 {
            Output.writeAll("photos: error: cannot write the output: \(String(cString: strerror(errno)))\n", to: STDERR_FILENO)
            code = 74
        }
        _exit(code)
    }

    /// The parser's message about an option's value, with what it leaves unsaid: that an `<n>`
    /// option takes a whole number (or that the one given is too large for one), and how to give
    /// a value that starts with `-`, which the parser takes for an option of its own and then
    /// says the value is missing.
    static func explainingValue(_ message: String, arguments: [String]) -> String {
        var message = message
        if let end = message.range(of: " <n>'"), message.contains("is invalid for '--") {
            let given = message.range(of: "The value '").flatMap { start in
                message[start.upperBound...].range(of: "' is invalid").map { message[start.upperBound..<$0.lowerBound] }
            }
            let tooLarge = given.map { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } } ?? false
            message.insert(contentsOf: tooLarge ? ": too large a number" : ": a whole number is wanted", at: end.upperBound)
        }
        if let start = message.range(of: "Missing value for '--") {
            let option = "--" + message[start.upperBound...].prefix { $0 != " " && $0 != "'" }
            if let index = arguments.firstIndex(of: option), index + 1 < arguments.count, arguments[index + 1].hasPrefix("-"),
                arguments[index + 1].count > 1
            {
                let value = arguments[index + 1]
                let line = message.firstIndex(of: "\n") ?? message.endIndex
                message.insert(contentsOf: " (a value that starts with - is given as \(option)=\(value))", at: line)
            }
        }
        return message
    }
}
