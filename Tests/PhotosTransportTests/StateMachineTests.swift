import Foundation
import PhotosTestSupport
import PhotosCore
import Synchronization
import Testing

@testable import PhotosTransport

/// The pieces that own continuations and timing, tested without a network.
@Suite struct StateMachineTests {
    @Test func completionResumesOnceWhicheverComesFirst() async throws {
        let early = TransferCompletion()
        #expect(early.complete(.failure(CancellationError())))
        #expect(!early.complete(.failure(TransportError.invalidURL)), "a second result is ignored")
        let result = await withCheckedContinuation { early.wait($0) }
        #expect(throws: CancellationError.self) { try result.get() }

        let late = TransferCompletion()
        async let waited = withCheckedContinuation { late.wait($0) }
        #expect(late.complete(.success(HTTPResponse(status: 204, effectiveURL: "https://x"))))
        let status = try await waited.get().status
        #expect(status == 204)
        #expect(late.isCompleted)
    }

    @Test func coalescerRunsOneOperationForConcurrentCallers() async throws {
        let coalescer = RequestCoalescer<String, Int>()
        let runs = Counter()
        let gate = AsyncGate()
        let a = Task {
            try await coalescer.run("k") {
                runs.increment()
                await gate.wait()
                return 42
            }
        }
        try await waitUntil { runs.value == 1 }
        let b = Task {
            try await coalescer.run("k") {
                runs.increment()
                return 7
            }
        }
        try await waitUntil { coalescer.waiterCount("k") == 2 }
        await gate.open()
        let (x, y) = try await (a.value, b.value)
        #expect(x == 42 && y == 42)
        let count = runs.value
        #expect(count == 1)
        // Once finished, the next call runs again.
        let again = try await coalescer.run("k") { 9 }
        #expect(again == 9)
    }

    @Test func aCancelledCallerLeavesWhileOthersKeepTheOperation() async throws {
        let coalescer = RequestCoalescer<String, Int>()
        let gate = AsyncGate()
        let cancelled = Atomic<Bool>(false)
        let started = Atomic<Bool>(false)
        let first = Task {
            try await coalescer.run("k") {
                started.store(true, ordering: .relaxed)
                await gate.wait()
                if Task.isCancelled { cancelled.store(true, ordering: .relaxed) }
                return 1
            }
        }
        try await waitUntil { started.load(ordering: .relaxed) }
        let second = Task { try await coalescer.run("k") { 2 } }
        try await waitUntil { coalescer.waiterCount("k") == 2 }
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        await gate.open()
        let shared = try await second.value
        #expect(shared == 1)
        let operationCancelled = cancelled.load(ordering: .relaxed)
        #expect(!operationCancelled, "the shared operation was not cancelled")
        #expect(coalescer.trackedCallers == 0, "no call is left behind")
    }

    @Test func aCallerCancelledBeforeItWaitsNeverRunsTheOperation() async throws {
        let coalescer = RequestCoalescer<String, Int>()
        let runs = Counter()
        for _ in 0..<50 {
            let task = Task {
                try await coalescer.run("k") {
                    runs.increment()
                    try await Task.sleep(for: .seconds(30))
                    return 1
                }
            }
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
        }
        #expect(coalescer.trackedCallers == 0, "cancelled calls leave nothing behind")
        #expect(coalescer.waiterCount("k") == 0)
    }

    @Test func theLastCallerCancellingCancelsTheOperation() async throws {
        let coalescer = RequestCoalescer<String, Int>()
        let sawCancel = Atomic<Bool>(false)
        let started = Atomic<Bool>(false)
        let task = Task {
            try await coalescer.run("k") {
                started.store(true, ordering: .relaxed)
                do {
                    try await Task.sleep(for: .seconds(30))
                } catch {
                    sawCancel.store(true, ordering: .relaxed)
                    throw error
                }
                return 1
            }
        }
        try await waitUntil { started.load(ordering: .relaxed) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        let woundDown = sawCancel.load(ordering: .relaxed)
        #expect(woundDown, "the caller returned only after the operation wound down")
        #expect(coalescer.trackedCallers == 0)
    }

    @Test func backoffGrowsWithJitterAndRespectsTheCeiling() {
        var policy = RetryPolicy()
        policy.baseDelay = .milliseconds(100)
        policy.maxDelay = .seconds(1)
        #expect(policy.backoff(afterAttempt: 1, random: 1) == .milliseconds(100))
        #expect(policy.backoff(afterAttempt: 3, random: 1) == .milliseconds(400))
        #expect(policy.backoff(afterAttempt: 10, random: 1) == .seconds(1))
        #expect(policy.backoff(afterAttempt: 3, random: 0) == .milliseconds(40))
    }

    @Test func retryAfterReadsSecondsAndDates() {
        #expect(RetryPolicy.retryAfter("3") == .seconds(3))
        #expect(RetryPolicy.retryAfter(" 0 ") == .seconds(0))
        #expect(RetryPolicy.retryAfter("soon") == nil)
        #expect(RetryPolicy.retryAfter(nil) == nil)
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let later = "Tue, 14 Nov 2023 22:13:30 GMT"  // 10 s after `now`
        #expect(RetryPolicy.retryAfter(later, now: now) == .seconds(10))
    }

    @Test func onlyHTTPAndHTTPSURLsHaveAHost() throws {
        #expect(try CurlTransport.validatedHost("https://example.org/a") == "example.org")
        #expect(throws: TransportError.unsupportedScheme("ftp")) { try CurlTransport.validatedHost("ftp://example.org/a") }
        #expect(throws: TransportError.unsupportedScheme("file")) { try CurlTransport.validatedHost("FILE:///etc/passwd") }
        #expect(throws: TransportError.invalidURL) { try CurlTransport.validatedHost("not a url") }
    }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

/// A one-shot gate tasks can wait on.
actor AsyncGate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters.removeAll()
    }
}
