import Synchronization

/// Runs one operation per key at a time and hands its result to every caller that asked for
/// the same key meanwhile. A caller that is cancelled leaves at once; the operation itself is
/// cancelled only when its last caller has left.
final class RequestCoalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private typealias Waiter = CheckedContinuation<Value, any Error>

    private struct Entry {
        var task: Task<Void, Never>?
        var generation: UInt64
        var waiters: [UInt64: Waiter] = [:]
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var nextID: UInt64 = 0
        var cancelledBeforeWaiting: Set<UInt64> = []
    }

    private let state = Mutex(State())

    /// Whether an operation for `key` is in flight (for tests and statistics).
    func isInFlight(_ key: Key) -> Bool {
        state.withLock { $0.entries[key] != nil }
    }

    func run(_ key: Key, operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                let cancelled: Bool = state.withLock { state in
                    if state.cancelledBeforeWaiting.remove(id) != nil { return true }
                    if state.entries[key] != nil {
                        state.entries[key]?.waiters[id] = waiter
                        return false
                    }
                    var entry = Entry(generation: id)
                    entry.waiters[id] = waiter
                    entry.task = Task { [weak self] in
                        let result: Result<Value, any Error>
                        do {
                            result = .success(try await operation())
                        } catch {
                            result = .failure(error)
                        }
                        self?.finish(key, generation: id, result)
                    }
                    state.entries[key] = entry
                    return false
                }
                if cancelled { waiter.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let (waiter, orphanedTask): (Waiter?, Task<Void, Never>?) = state.withLock { state in
                guard let waiter = state.entries[key]?.waiters.removeValue(forKey: id) else {
                    state.cancelledBeforeWaiting.insert(id)
                    return (nil, nil)
                }
                if state.entries[key]?.waiters.isEmpty == true {
                    let task = state.entries.removeValue(forKey: key)?.task
                    return (waiter, task)
                }
                return (waiter, nil)
            }
            orphanedTask?.cancel()
            waiter?.resume(throwing: CancellationError())
        }
    }

    private func finish(_ key: Key, generation: UInt64, _ result: Result<Value, any Error>) {
        let waiters: [Waiter] = state.withLock { state in
            // The entry may be gone (every caller left) or belong to a newer operation.
            guard state.entries[key]?.generation == generation,
                  let entry = state.entries.removeValue(forKey: key) else { return [] }
            return Array(entry.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }
}
