import Synchronization

/// A queue of batches between one producer task and one consumer task, holding at most
/// `capacity` batches: a producer that gets ahead waits, so memory stays bounded however long
/// the input is (a listing of thousands, a long stdin).
///
/// One state machine owns both continuations and resumes each exactly once, whatever happens
/// first: a batch, the end, an error, or the cancellation of the waiting task.
final class BatchChannel<Element: Sendable>: Sendable {
    private typealias Receiver = CheckedContinuation<Element?, any Error>
    private typealias Sender = CheckedContinuation<Void, any Error>

    private struct State {
        var buffer: [Element] = []
        var ended: Result<Void, any Error>?
        var receiver: Receiver?
        var sender: Sender?
        var senderCancelled = false
        var receiverCancelled = false
    }

    private enum SendAction { case resumeReceiver(Receiver), resumeSender, cancel, wait }
    private enum ReceiveAction { case deliver(Element, Sender?), end(Result<Void, any Error>), cancel, wait }

    private let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Adds a batch, waiting while the channel is full.
    /// - Throws: `CancellationError` when the sending task is cancelled or the receiver left.
    func send(_ element: Element) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (sender: Sender) in
                let action: SendAction = state.withLock { state in
                    if state.senderCancelled || state.receiverCancelled || state.ended != nil { return .cancel }
                    if let receiver = state.receiver {
                        state.receiver = nil
                        return .resumeReceiver(receiver)
                    }
                    state.buffer.append(element)
                    if state.buffer.count <= capacity { return .resumeSender }
                    state.sender = sender
                    return .wait
                }
                switch action {
                case .resumeReceiver(let receiver):
                    receiver.resume(returning: element)
                    sender.resume()
                case .resumeSender:
                    sender.resume()
                case .cancel:
                    sender.resume(throwing: CancellationError())
                case .wait:
                    break
                }
            }
        } onCancel: {
            let waiting: Sender? = state.withLock { state in
                state.senderCancelled = true
                defer { state.sender = nil }
                return state.sender
            }
            waiting?.resume(throwing: CancellationError())
        }
    }

    /// Ends the channel: the receiver gets the batches still queued, then nil (or `error`).
    func finish(throwing error: (any Error)? = nil) {
        let receiver: Receiver? = state.withLock { state in
            guard state.ended == nil else { return nil }
            state.ended = error.map { .failure($0) } ?? .success(())
            guard state.buffer.isEmpty else { return nil }
            defer { state.receiver = nil }
            return state.receiver
        }
        guard let receiver else { return }
        if let error { receiver.resume(throwing: error) } else { receiver.resume(returning: nil) }
    }

    /// The next batch, waiting for one; nil once the channel finished and is empty.
    /// - Throws: the error the channel finished with, or `CancellationError`.
    func next() async throws -> Element? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (receiver: Receiver) in
                let action: ReceiveAction = state.withLock { state in
                    if state.receiverCancelled { return .cancel }
                    if !state.buffer.isEmpty {
                        let element = state.buffer.removeFirst()
                        let sender = state.sender
                        state.sender = nil
                        return .deliver(element, sender)
                    }
                    if let ended = state.ended { return .end(ended) }
                    state.receiver = receiver
                    return .wait
                }
                switch action {
                case .deliver(let element, let sender):
                    receiver.resume(returning: element)
                    sender?.resume()
                case .end(.success):
                    receiver.resume(returning: nil)
                case .end(.failure(let error)):
                    receiver.resume(throwing: error)
                case .cancel:
                    receiver.resume(throwing: CancellationError())
                case .wait:
                    break
                }
            }
        } onCancel: {
            let (waiting, sender): (Receiver?, Sender?) = state.withLock { state in
                state.receiverCancelled = true
                defer {
                    state.receiver = nil
                    state.sender = nil
                }
                return (state.receiver, state.sender)
            }
            waiting?.resume(throwing: CancellationError())
            sender?.resume(throwing: CancellationError())
        }
    }
}
