import PhotosCore
import Synchronization

/// Owns what waits for one transfer's result, a continuation or a handler, and delivers the
/// result to it exactly once, whichever comes first: the result from the loop thread, or the
/// task's cancellation.
final class TransferCompletion: Sendable {
    typealias Continuation = CheckedContinuation<Result<HTTPResponse, any Error>, Never>

    typealias Handler = @Sendable (Result<HTTPResponse, any Error>) -> Void

    private enum State {
        case idle
        case waiting(Continuation)
        /// A handler called with the result on the thread that delivers it (the loop thread).
        case handled(Handler)
        case finished(Result<HTTPResponse, any Error>)
        case resumed
    }

    private let state = Mutex<State>(.idle)

    /// Installs the continuation; resumes it at once if the result is already known.
    func wait(_ continuation: Continuation) {
        if let ready = install(.waiting(continuation)) { continuation.resume(returning: ready) }
    }

    /// Installs a handler instead of a continuation: it runs, once, on the thread that delivers
    /// the result (the transport's loop thread), so it must be short. Runs at once when the
    /// result is already known.
    func handle(_ handler: @escaping Handler) {
        if let ready = install(.handled(handler)) { handler(ready) }
    }

    /// Puts `waiter` in place, or returns the result when it is known already.
    private func install(_ waiter: State) -> Result<HTTPResponse, any Error>? {
        state.withLock { state in
            switch state {
            case .idle:
                state = waiter
                return nil
            case .finished(let result):
                state = .resumed
                return result
            case .waiting, .handled, .resumed:
                preconditionFailure("a transfer's continuation was installed twice")
            }
        }
    }

    /// Delivers the result. Returns false when the transfer had already completed.
    @discardableResult
    func complete(_ result: Result<HTTPResponse, any Error>) -> Bool {
        enum Delivery { case none, stored, resume(Continuation), call(Handler) }
        let delivery: Delivery = state.withLock { state in
            switch state {
            case .idle:
                state = .finished(result)
                return .stored
            case .waiting(let continuation):
                state = .resumed
                return .resume(continuation)
            case .handled(let handler):
                state = .resumed
                return .call(handler)
            case .finished, .resumed:
                return .none
            }
        }
        switch delivery {
        case .none: return false
        case .stored: return true
        case .resume(let continuation): continuation.resume(returning: result)
        case .call(let handler): handler(result)
        }
        return true
    }

    var isCompleted: Bool {
        state.withLock { state in
            switch state {
            case .idle, .waiting, .handled: return false
            case .finished, .resumed: return true
            }
        }
    }
}

