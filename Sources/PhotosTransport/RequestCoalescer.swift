import Synchronization

/// Runs one operation per key at a time and hands its result to every caller that asked for
/// the same key meanwhile.
///
/// A cancelled caller leaves at once while others still wait. When the last caller is
/// cancelled, the operation is cancelled and that caller waits for it to wind down (so a
/// download has removed its temp file by the time the caller sees `CancellationError`).
final class RequestCoalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private typealias Waiter = CheckedContinuation<Value, any Error>

    private struct Operation {
        var task: Task<Void, Never>?
        var waiters: [UInt64: Waiter] = [:]
    }

    /// Where one call stands. Its cancellation handler may run before its continuation exists.
    private enum Caller {
        /// Between `run` and storing its continuation.
        case starting
        /// Cancelled while `.starting`: it must not wait once its continuation exists.
        case cancelledEarly
        /// Waiting on the operation of this generation.
        case waiting(generation: UInt64)
    }

    private struct State {
        /// Operations new callers may join, by key, each with the id of its generation.
        var joinable: [Key: UInt64] = [:]
        /// Every running operation by generation, joinable or winding down after cancellation.
        var running: [UInt64: Operation] = [:]
        /// Calls not yet answered, by id.
        var callers: [UInt64: Caller] = [:]
        var nextID: UInt64 = 0
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
            state.callers[state.nextID] = .starting
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                let cancelled: Bool = state.withLock { state in
                    if case .cancelledEarly = state.callers[id] {
                        state.callers[id] = nil
                        return true
                    }
                    if let generation = state.joinable[key] {
                        state.running[generation]?.waiters[id] = waiter
                        state.callers[id] = .waiting(generation: generation)
                        return false
                    }
                    var started = Operation()
                    started.waiters[id] = waiter
                    started.task = Task { [weak self] in
                        let result: Result<Value, any Error>
                        do {
                            result = .success(try await operation())
                        } catch {
                            result = .failure(error)
                        }
                        self?.finish(key, generation: id, result)
                    }
                    state.joinable[key] = id
                    state.running[id] = started
                    state.callers[id] = .waiting(generation: id)
                    return false
                }
                if cancelled { waiter.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let (leaving, orphaned): (Waiter?, Task<Void, Never>?) = state.withLock { state in
                switch state.callers[id] {
                case .starting:
                    state.callers[id] = .cancelledEarly
                    return (nil, nil)
                case .waiting(let generation):
                    guard var running = state.running[generation], running.waiters[id] != nil else { return (nil, nil) }
                    if running.waiters.count == 1 {
                        // Last caller: cancel the work, and wait for it to finish cleaning up.
                        if state.joinable[key] == generation { state.joinable[key] = nil }
                        return (nil, running.task)
                    }
                    let waiter = running.waiters.removeValue(forKey: id)
                    state.running[generation] = running
                    state.callers[id] = nil
                    return (waiter, nil)
                case .cancelledEarly, nil:
                    return (nil, nil)  // answered already
                }
            }
            orphaned?.cancel()
            leaving?.resume(throwing: CancellationError())
        }
    }

    private func finish(_ key: Key, generation: UInt64, _ result: Result<Value, any Error>) {
        let waiters: [Waiter] = state.withLock { state in
            if state.joinable[key] == generation { state.joinable[key] = nil }
            guard let finished = state.running.removeValue(forKey: generation) else { return [] }
            for id in finished.waiters.keys { state.callers[id] = nil }
            return Array(finished.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// Calls still tracked (for tests: zero once every call has returned).
    var trackedCallers: Int { state.withLock { $0.callers.count } }
}
