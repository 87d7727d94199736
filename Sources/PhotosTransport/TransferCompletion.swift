import PhotosCore
import Synchronization

/// Owns the continuation of one transfer and resumes it exactly once, whichever comes first:
/// the result from the loop thread, or the task's cancellation.
final class TransferCompletion: Sendable {
    typealias Continuation = CheckedContinuation<Result<HTTPResponse, any Error>, Never>

    private enum State {
        case idle
        case waiting(Continuation)
        case finished(Result<HTTPResponse, any Error>)
        case resumed
    }

    private let state = Mutex<State>(.idle)

    /// Installs the continuation; resumes it at once if the result is already known.
    func wait(_ continuation: Continuation) {
        let ready: Result<HTTPResponse, any Error>? = state.withLock { state in
            switch state {
            case .idle:
                state = .waiting(continuation)
                return nil
            case .finished(let result):
                state = .resumed
                return result
            case .waiting, .resumed:
                preconditionFailure("a transfer's continuation was installed twice")
            }
        }
        if let ready { continuation.resume(returning: ready) }
    }

    /// Delivers the result. Returns false when the transfer had already completed.
    @discardableResult
    func complete(_ result: Result<HTTPResponse, any Error>) -> Bool {
        let continuation: Continuation?? = state.withLock { state in
            switch state {
            case .idle:
                state = .finished(result)
                return .some(nil)
            case .waiting(let continuation):
                state = .resumed
                return .some(continuation)
            case .finished, .resumed:
                return nil
            }
        }
        guard let continuation else { return false }
        continuation?.resume(returning: result)
        return true
    }

    var isCompleted: Bool {
        state.withLock { state in
            switch state {
            case .idle, .waiting: return false
            case .finished, .resumed: return true
            }
        }
    }
}

