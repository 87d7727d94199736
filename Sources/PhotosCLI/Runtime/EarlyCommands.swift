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
            Output.writeAll(VersionReport.text(verbose: false), to: STDOUT_FILENO)
            return true
        case ["--version", "--verbose"], ["--verbose", "--version"], ["--version", "-v"], ["-v", "--version"]:
            Output.writeAll(VersionReport.text(verbose: true), to: STDOUT_FILENO)
            return true
        case ["--generate-completion-script", "bash"], ["--generate-completion-script=bash"]:
            Output.writeAll(Completions.bashScript(), to: STDOUT_FILENO)
            return true
        default:
            return false
        }
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
