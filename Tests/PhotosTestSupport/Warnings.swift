import Synchronization

/// Collects lines a component reports (the cache's warnings, failures of worker tasks).
public final class Warnings: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    public var all: [String] { lines.withLock { $0 } }

    public var sink: @Sendable (String) -> Void { { [self] line in lines.withLock { $0.append(line) } } }
}
