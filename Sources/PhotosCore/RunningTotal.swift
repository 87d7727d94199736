import Synchronization

/// A running total (bytes received, bytes saved) that threads add to and read without a lock.
public final class RunningTotal: Sendable {
    private let value = Atomic<Int>(0)

    public init() {}

    public func add(_ count: Int) { value.wrappingAdd(count, ordering: .relaxed) }

    public var total: Int { value.load(ordering: .relaxed) }
}
