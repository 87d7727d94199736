import CurlShim
import Dispatch
import Foundation
import PhotosCore
import Synchronization

/// Counters kept by a transport over its lifetime.
public struct TransportStatistics: Sendable, Equatable {
    /// Connections libcurl had to open.
    public var connectionsOpened = 0
    /// Completed transfers (any status) by the HTTP version they used.
    public var transfersByVersion: [HTTPVersion: Int] = [:]
    public var failedTransfers = 0
    public var retries = 0
    public var bytesReceived = 0

    public var completedTransfers: Int { transfersByVersion.values.reduce(0, +) }
}

/// One libcurl multi handle driven by one thread. Other threads only enqueue commands and wake
/// the loop with `curl_multi_wakeup`; every libcurl call but that one happens on the loop thread.
final class CurlLoop: @unchecked Sendable {
    private enum Command {
        case add(Transfer)
        case cancel(Transfer)
        case shutdown
    }

    private let multi: UnsafeMutableRawPointer
    private let configuration: TransportConfiguration
    /// Commands for the loop; `closed` once shutdown was asked, after which nothing is accepted.
    private let commands = Mutex<(queue: [Command], closed: Bool)>(([], false))
    let statistics = Mutex(TransportStatistics())
    /// Hosts that could not be reached, until when they are failed fast.
    let downHosts = Mutex<[String: ContinuousClock.Instant]>([:])

    // Loop-thread state.
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]
    private var queue: [Transfer] = []
    private var queueHead = 0
    private var stopping = false
    /// Signalled when the loop thread has cleaned up libcurl and is about to exit.
    private let stopped = DispatchSemaphore(value: 0)

    init(configuration: TransportConfiguration) throws(TransportError) {
        guard photos_curl_global_init_once() == CURLE_OK, let multi = photos_curl_multi_init() else {
            throw .other(host: "", code: Int(CURLE_FAILED_INIT.rawValue), detail: "libcurl failed to initialise")
        }
        self.multi = multi
        self.configuration = configuration
        photos_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        photos_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, configuration.maxConnectionsPerHost))
        photos_curl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, max(1, configuration.maxConcurrentStreams))
        let thread = Thread { [self] in
            run()
            stopped.signal()
        }
        thread.name = "photos-curl"  // Linux keeps 15 characters of a thread name
        thread.start()
    }

    func submit(_ transfer: Transfer) {
        if !send(.add(transfer)) {
            transfer.discardOutput()  // never reached the loop: this thread still owns it
            transfer.completion.complete(.failure(CancellationError()))
        }
    }
    func cancel(_ transfer: Transfer) { send(.cancel(transfer)) }
    /// Cancels every transfer and waits until the loop has released libcurl. Call it once.
    ///
    /// Waiting matters at exit: a loop thread still tearing down TLS state while the process
    /// runs its exit handlers can free the same memory twice.
    func shutdown() {
        if send(.shutdown) { stopped.wait() }
    }

    /// Queues `command`; false when the loop is shutting down and takes no more.
    @discardableResult
    private func send(_ command: Command) -> Bool {
        // The loop drains every queued command at once, so only the first one needs a wake-up.
        let (accepted, wasEmpty) = commands.withLock { commands -> (Bool, Bool) in
            guard !commands.closed else { return (false, false) }
            if case .shutdown = command { commands.closed = true }
            commands.queue.append(command)
            return (true, commands.queue.count == 1)
        }
        if wasEmpty { photos_curl_multi_wakeup(multi) }
        return accepted
    }

    func isDown(_ host: String) -> Bool {
        downHosts.withLock { hosts in
            guard let until = hosts[host] else { return false }
            if until > .now { return true }
            hosts[host] = nil
            return false
        }
    }

    // MARK: Loop thread

    private func run() {
        while true {
            drainCommands()
            if stopping && active.isEmpty { break }
            startQueued()
            var running: Int32 = 0
            let performed = photos_curl_multi_perform(multi, &running)
            if collectFinished() && startQueued() {
                continue  // freed slots were refilled: let libcurl start them before sleeping
            }
            var ready: Int32 = 0
            let polled = performed == CURLM_OK ? photos_curl_multi_poll(multi, nil, 0, 1000, &ready) : performed
            if polled != CURLM_OK && polled != CURLM_CALL_MULTI_PERFORM {
                // The multi handle itself failed (out of memory, a broken socket set): looping
                // on would spin. Every transfer fails with the reason and the loop stops.
                failEverything(code: polled)
                break
            }
        }
        photos_curl_multi_cleanup(multi)
    }

    private func failEverything(code: CURLMcode) {
        let detail = "libcurl's multi interface failed (\(code.rawValue)); photos cannot make requests this run"
        commands.withLock { $0.closed = true }
        for transfer in active.values {
            if let easy = transfer.easy { photos_curl_multi_remove_handle(multi, easy) }
            transfer.releaseHandle()
            transfer.discardOutput()
            transfer.completion.complete(.failure(TransportError.other(host: transfer.host, code: Int(code.rawValue), detail: detail)))
        }
        active.removeAll()
        for transfer in queue[queueHead...] {
            transfer.discardOutput()
            transfer.completion.complete(.failure(TransportError.other(host: transfer.host, code: Int(code.rawValue), detail: detail)))
        }
        queue.removeAll()
        queueHead = 0
    }

    private func drainCommands() {
        let pending = commands.withLock { commands in
            let taken = commands.queue
            commands.queue.removeAll(keepingCapacity: true)
            return taken
        }
        for command in pending {
            switch command {
            case .add(let transfer):
                if stopping {
                    transfer.discardOutput()
                    transfer.completion.complete(.failure(CancellationError()))
                } else if !transfer.completion.isCompleted {
                    queue.append(transfer)
                }
            case .cancel(let transfer):
                cancelTransfer(transfer)
            case .shutdown:
                stopping = true
                for transfer in active.values { cancelTransfer(transfer) }
                for transfer in queue[queueHead...] {
                    transfer.discardOutput()
                    transfer.completion.complete(.failure(CancellationError()))
                }
                queue.removeAll()
                queueHead = 0
            }
        }
    }

    private func cancelTransfer(_ transfer: Transfer) {
        if let easy = transfer.easy, active.removeValue(forKey: easy) != nil {
            photos_curl_multi_remove_handle(multi, easy)
            transfer.releaseHandle()
        }
        transfer.discardOutput()
        // A transfer still queued is skipped when reached: it is completed from now on.
        transfer.completion.complete(.failure(CancellationError()))
    }

    /// Moves queued transfers into libcurl while there is room. Returns whether any started.
    @discardableResult
    private func startQueued() -> Bool {
        var started = false
        while active.count < configuration.maxActiveTransfers, queueHead < queue.count {
            let transfer = queue[queueHead]
            queueHead += 1
            if transfer.completion.isCompleted { continue }
            if isDown(transfer.host) {
                transfer.discardOutput()
                transfer.completion.complete(.failure(TransportError.hostDown(host: transfer.host)))
                continue
            }
            do {
                let easy = try transfer.makeHandle(configuration: configuration)
                let code = photos_curl_multi_add_handle(multi, easy)
                guard code == CURLM_OK else {
                    transfer.releaseHandle()
                    throw TransportError.other(host: transfer.host, code: Int(code.rawValue), detail: "curl_multi_add_handle failed")
                }
                active[easy] = transfer
                started = true
            } catch {
                transfer.discardOutput()
                transfer.completion.complete(.failure(error))
            }
        }
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        } else if queueHead > 1024 {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
        return started
    }

    /// Completes every finished transfer. Returns whether any finished.
    private func collectFinished() -> Bool {
        var finished = false
        var easy: UnsafeMutableRawPointer?
        var code = CURLE_OK
        while photos_curl_multi_next_done(multi, &easy, &code) {
            guard let handle = easy, let transfer = active.removeValue(forKey: handle) else { continue }
            photos_curl_multi_remove_handle(multi, handle)
            let result = transfer.finish(code: code)
            record(result, connections: transfer.connectionsOpened)
            transfer.completion.complete(result)
            finished = true
        }
        return finished
    }

    private func record(_ result: Result<HTTPResponse, any Error>, connections: Int) {
        statistics.withLock { statistics in
            statistics.connectionsOpened += connections
            switch result {
            case .success(let response):
                statistics.transfersByVersion[response.httpVersion, default: 0] += 1
                statistics.bytesReceived += response.bytes
            case .failure:
                statistics.failedTransfers += 1
            }
        }
    }
}
