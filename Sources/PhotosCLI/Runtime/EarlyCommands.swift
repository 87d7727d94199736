#if canImport(Glibc)
import Glibc
#endif
import PhotosCore
import PhotosTransport

/// Invocations answered before the argument parser runs: `photos --version` (the same line the
/// parser prints), `photos --version --verbose` (the parser's own `--version` ignores other flags) and the bash completion script (the parser's,
/// plus the part that keeps `provider:id` words whole).
public enum EarlyCommands {
    /// Handles `arguments` (without the program name) when they are one of these; returns
    /// whether it did.
    public static func handle(_ arguments: [String]) -> Bool {
        switch arguments {
        case ["--version"]:
            // What the parser would print, without building the command tree: `photos --version`
            // is the start-up floor scripts and the benchmarks measure.
            write(VersionReport.text(verbose: false))
            return true
        case ["--version", "--verbose"], ["--verbose", "--version"], ["--version", "-v"], ["-v", "--version"]:
            write(VersionReport.text(verbose: true))
            return true
        case ["--generate-completion-script", "bash"], ["--generate-completion-script=bash"]:
            write(Completions.bashScript())
            return true
        default:
            return false
        }
    }

    /// Writes `text` to stdout; leaves with 74 when it cannot (a full disk), quietly when the
    /// reader has gone (`photos --version | true`).
    private static func write(_ text: String) {
        Output.exitIfStandardOutputWasClosed()
        guard let code = Output.writeAll(text, to: STDOUT_FILENO), code != EPIPE else { return }
        Output.writeAll("photos: error: cannot write the output: \(String(cString: strerror(code)))\n", to: STDERR_FILENO)
        _exit(74)
    }
}

/// `photos --version --verbose`: photos' version and the libcurl it loads.
enum VersionReport {
    static func text(verbose: Bool) -> String {
        guard verbose else { return PhotosVersion.current + "\n" }
        return "photos \(PhotosVersion.current)\n\(curlLine)\n"
    }

    /// One line about libcurl: version, HTTP/2 and the TLS library, or why it is missing.
    static var curlLine: String {
        guard let curl = CurlLibraryInfo.current() else {
            return "libcurl: cannot be loaded (install libcurl4; photos needs it for the network)"
        }
        return curl.summary
    }
}
