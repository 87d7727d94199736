import Synchronization

/// What a command used last, held until the process exits instead of freed piece by piece.
///
/// The binary leaves with `_exit` (``PhotosCommand/runAndExit(_:)``), so freeing is work no one
/// needs: for a cached listing of 500, destroying its photos and the closed index (GRDB's
/// `DatabaseQueue` unregisters from Foundation's `NotificationCenter`, which costs two scans
/// of the binary's protocol conformances) was 2.5 M of its 25 M instructions.
///
/// Off unless the binary's entry turns it on: tests run commands in one process, many times.
enum ExitTeardown {
    private static let state = Mutex<(skipping: Bool, kept: [AnyObject])>((false, []))

    /// From now on, ``keep(_:)`` holds what it is given until the process exits.
    static func skip() {
        state.withLock { $0.skipping = true }
    }

    /// Holds `value` until exit when teardown is skipped; otherwise does nothing.
    static func keep<Value>(_ value: Value) {
        state.withLock { state in
            if state.skipping { state.kept.append(Box(value)) }
        }
    }

    private final class Box<Value> {
        let value: Value
        init(_ value: Value) { self.value = value }
    }
}
