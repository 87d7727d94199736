import Dispatch
import Foundation

extension FixtureServer {
    /// Suspends until the process receives SIGINT or SIGTERM (both are then ignored, so the
    /// caller can shut down cleanly and exit 0).
    public static func waitForTerminationSignal() async {
        let queue = DispatchQueue(label: "photos-fixture-server.signals")
        let fired = Locked(false)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let sources = [SIGINT, SIGTERM].map { number -> DispatchSourceSignal in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler {
                    let first = fired.withLock { value -> Bool in
                        defer { value = true }
                        return !value
                    }
                    if first { continuation.resume() }
                }
                source.resume()
                return source
            }
            // The sources must outlive the wait.
            SignalSources.keep(sources)
        }
    }
}

/// Keeps signal sources alive for the life of the process.
private enum SignalSources {
    private static let storage = Locked<[DispatchSourceSignal]>([])
    static func keep(_ sources: [DispatchSourceSignal]) {
        storage.withLock { $0.append(contentsOf: sources) }
    }
}
