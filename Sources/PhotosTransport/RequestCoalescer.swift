import Synchronization

/// Runs one operation per key at a time and hands its result to every caller that asked for
/// the same key meanwhile.
///
/// A cancelled caller leaves at once while others still wait. When the last caller is
/// cancelled, the operation is cancelled and that caller waits for it to wind down (so a
/// download has removed its temp file by the time the caller sees `CancellationError`).
final class RequestCoalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private typealias Waiter = CheckedContinuation<Value, any Error>

    private struct Entry {
        var task: Task<Void, Never>?
        var waiters: [UInt64: Waiter] = [:]
    }

    private struct State {
        /// Operations new callers may join, by key, each with the id of its generation.
        var joinable: [Key: UInt64] = [:]
        /// Every running operation by generation, joinable or winding down after cancellation.
        var running: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
        var cancelledBeforeWaiting: Set<UInt64> = []
    }

    private let state = Mutex(State())

    /// Callers waiting on the joinable operation for `key` (for tests).
    func waiterCount(_ key: Key) -> Int {
        state.withLock { state in
            state.joinable[key].flatMap { state.running[$0]?.waiters.count } ?? 0
        }
    }

    func run(_ key: Key, operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        // The generation this caller joined, for the cancellation handler.
        let joined = Mutex<UInt64?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                let cancelled: Bool = state.withLock { state in
                    if state.cancelledBeforeWaiting.remove(id) != nil { return true }
                    if let generation = state.joinable[key] {
                        state.running[generation]?.waiters[id] = waiter
                        joined.withLock { $0 = generation }
                        return false
                    }
                    var entry = Entry()
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
                    state.joinable[key] = id
                    state.running[id] = entry
                    joined.withLock { $0 = id }
                    return false
                }
                if cancelled { waiter.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let (leaving, orphaned): (Waiter?, Task<Void, Never>?) = state.withLock { state in
                guard let generation = joined.withLock({ $0 }), var entry = state.running[generation],
                      entry.waiters[id] != nil
                else {
                    state.cancelledBeforeWaiting.insert(id)
                    return (nil, nil)
                }
                if entry.waiters.count == 1 {
                    // Last caller: cancel the work, and wait for it to finish cleaning up.
                    if state.joinable[key] == generation { state.joinable[key] = nil }
                    return (nil, entry.task)
                }
                let waiter = entry.waiters.removeValue(forKey: id)
                state.running[generation] = entry
                return (waiter, nil)
            }
            orphaned?.cancel()
            leaving?.resume(throwing: CancellationError())
        }
    }

    private func finish(_ key: Key, generation: UInt64, _ result: Result<Value, any Error>) {
        let waiters: [Waiter] = state.withLock { state in
            if state.joinable[key] == generation { state.joinable[key] = nil }
            return state.running.removeValue(forKey: generation).map { Array($0.waiters.values) } ?? []
        }
        for waiter in waiters { waiter.resume(with: result) }
    }
}
