import Foundation
import PhotosCore
import Synchronization

extension CurlTransport {
    /// Downloads every item to the file its absolute path names (as ``download(_:to:)`` does
    /// each), calling `each` with the item's index and outcome as it ends, and returns once
    /// every item has ended.
    ///
    /// Built for hundreds of files: a first attempt ends on the loop thread, where `each` runs
    /// (it must be short), instead of waking a task per file; the calling task is woken only to
    /// hand the loop more transfers, a batch at a time, as room frees. An attempt that is retried
    /// continues in a task of its own, as ``download(_:to:)`` would. Cancelling the calling task
    /// cancels every transfer; each item not saved then ends with `CancellationError`.
    public func downloadAll(
        _ items: [(request: HTTPRequest, path: String)],
        each: @escaping @Sendable (Int, Result<HTTPResponse, any Error>) -> Void
    ) async {
        guard !items.isEmpty else { return }
        let window = concurrentTransfers + 28
        let batch = DownloadBatch(count: items.count, each: each)
        expectRequests(for: items.prefix(window).map(\.request.url))
        await withTaskCancellationHandler {
            while true {
                for index in batch.take(upTo: window) {
                    start(items[index].request, path: items[index].path, index: index, batch: batch)
                }
                // Woken when a batch's worth of room has freed, or when every item has ended.
                if await batch.waitForRoom(window: window, refill: max(1, window / 8)) { break }
            }
        } onCancel: {
            for transfer in batch.cancel() { loop.cancel(transfer) }
        }
    }

    private func start(_ request: HTTPRequest, path: String, index: Int, batch: DownloadBatch) {
        let destination = TransferDestination.file(Self.standardizedPath(path))
        let host: String
        var request = request
        let transfer: Transfer
        do {
            host = try Self.validatedHost(request.url)
            request.url = Self.upgradingToHTTPS(request.url, host: host)
            if let reason = loop.downReason(host) { throw TransportError.hostDown(host: host, reason: reason) }
            transfer = Transfer(request: request, destination: destination, host: host)
            try transfer.prepareOutput()
        } catch {
            batch.finish(index, .failure(error))
            return
        }
        let trustedWholeBundle = loop.trustsWholeBundle.load(ordering: .relaxed)
        guard batch.register(transfer, index: index) else {
            transfer.discardOutput()
            batch.finish(index, .failure(CancellationError()))
            return
        }
        let policy = request.retryable ? configuration.retry : .none
        let upgraded = request
        transfer.completion.handle { [self] result in
            // On the loop thread: the verdict on the first attempt; only a retry leaves it.
            batch.unregister(index)
            let pause: Duration?
            switch judge(result, attempt: 1, policy: policy, host: host, trustedWholeBundle: trustedWholeBundle) {
            case .answer(var response):
                response.attempts = 1
                batch.finish(index, .success(response))
                return
            case .failure(let error):
                batch.finish(index, .failure(error))
                return
            case .again:
                pause = nil
            case .retry(let delay):
                pause = delay
            }
            batch.retry(index) { [self] in
                let outcome: Result<HTTPResponse, any Error>
                do {
                    if let pause {
                        loop.statistics.withLock { $0.retries += 1 }
                        try await Task.sleep(for: pause)
                    }
                    outcome = .success(try await attempts(upgraded, destination: destination, host: host, made: pause == nil ? 0 : 1))
                } catch {
                    outcome = .failure(error)
                }
                batch.finish(index, outcome)
            }
        }
        loop.submit(transfer)
    }
}

/// The items of one ``CurlTransport/downloadAll(_:each:)``: which have been handed to the loop,
/// which are in flight, and the calling task while it waits for room.
final class DownloadBatch: Sendable {
    private struct State {
        var next = 0
        var inFlight = 0
        var ended = 0
        var cancelled = false
        var transfers: [Int: Transfer] = [:]
        var retries: [Int: Task<Void, Never>] = [:]
        var waiter: (continuation: CheckedContinuation<Bool, Never>, below: Int)?
    }

    let count: Int
    private let each: @Sendable (Int, Result<HTTPResponse, any Error>) -> Void
    private let state = Mutex(State())

    init(count: Int, each: @escaping @Sendable (Int, Result<HTTPResponse, any Error>) -> Void) {
        self.count = count
        self.each = each
    }

    /// The indices to start now: as many as keep `window` in flight. Once cancelled, the items
    /// not started end at once.
    func take(upTo window: Int) -> Range<Int> {
        let (range, skipped): (Range<Int>, Range<Int>) = state.withLock { state in
            if state.cancelled {
                let skipped = state.next..<count
                state.next = count
                state.inFlight += skipped.count
                return (0..<0, skipped)
            }
            let room = max(0, min(window - state.inFlight, count - state.next))
            let range = state.next..<(state.next + room)
            state.next += room
            state.inFlight += room
            return (range, 0..<0)
        }
        for index in skipped { finish(index, .failure(CancellationError())) }
        return range
    }

    /// Waits until at most `window - refill` items are in flight; true when every item ended.
    func waitForRoom(window: Int, refill: Int) async -> Bool {
        await withCheckedContinuation { continuation in
            let answer: Bool? = state.withLock { state in
                if state.ended == count { return true }
                if state.next < count, state.inFlight <= window - refill || state.cancelled { return false }
                state.waiter = (continuation, window - refill)
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    /// Records `transfer` as the item's attempt in flight; false when the batch was cancelled.
    func register(_ transfer: Transfer, index: Int) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.transfers[index] = transfer
            return true
        }
    }

    func unregister(_ index: Int) {
        _ = state.withLock { $0.transfers.removeValue(forKey: index) }
    }

    /// Runs `body`, which ends item `index`, in a task of its own, recorded for cancellation
    /// (cancelled at once when the batch was). It is made under the lock that its end takes:
    /// its record cannot outlive it.
    func retry(_ index: Int, _ body: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            let task = Task { await body() }
            if state.cancelled { task.cancel() } else { state.retries[index] = task }
        }
    }

    /// Marks the batch cancelled; returns the transfers in flight, to cancel.
    func cancel() -> [Transfer] {
        let (transfers, retries, waiter) = state.withLock { state in
            state.cancelled = true
            // A caller waiting with items not started is woken to end them; one waiting for
            // the last items to end goes on waiting.
            let waiter = state.next < count ? state.waiter : nil
            if waiter != nil { state.waiter = nil }
            defer {
                state.transfers.removeAll()
                state.retries.removeAll()
            }
            return (Array(state.transfers.values), Array(state.retries.values), waiter)
        }
        for task in retries { task.cancel() }
        // The caller goes on to end the items never started.
        waiter?.continuation.resume(returning: false)
        return transfers
    }

    /// Ends item `index` with `result`.
    func finish(_ index: Int, _ result: Result<HTTPResponse, any Error>) {
        each(index, result)
        let wake: (CheckedContinuation<Bool, Never>, Bool)? = state.withLock { state in
            state.inFlight -= 1
            state.ended += 1
            state.retries[index] = nil
            guard let waiter = state.waiter else { return nil }
            let done = state.ended == count
            guard done || (state.next < count && (state.inFlight <= waiter.below || state.cancelled)) else { return nil }
            state.waiter = nil
            return (waiter.continuation, done)
        }
        if let (continuation, done) = wake { continuation.resume(returning: done) }
    }
}
