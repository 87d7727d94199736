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
///
/// Transfers wait in one queue per host and are handed to libcurl as that host's connections
/// can take them (``HostAdmission``): one connection while its streams suffice, more only when
/// every stream is in use and transfers wait, up to `maxConnectionsPerHost`.
final class CurlLoop: @unchecked Sendable {
    private enum Command {
        case add(Transfer)
        case cancel(Transfer)
        /// Transfers by host that are about to be added (see ``expect(_:)``).
        case expect([String: Int])
        /// Connections to open ahead of their transfers (see ``preconnect(url:host:count:reserveOne:)``).
        case preconnect(url: String, host: String, count: Int, reserveOne: Bool)
        case shutdown
    }

    private let multi: UnsafeMutableRawPointer
    private let configuration: TransportConfiguration
    /// What other threads hand the loop, under one lock.
    private struct Inbox {
        var queue: [Command] = []
        /// Once shutdown was asked, or libcurl's multi handle failed, nothing more is accepted.
        var closed = false
        /// Why the multi handle failed, when that closed the queue (see ``failEverything(code:)``).
        var failure: (code: Int, detail: String)?
        /// A wake-up was sent that the loop has not answered by draining the queue yet.
        var wakeUpSent = false
        /// Hosts whose transfers were waiting in the loop's queues when it last went to sleep: a
        /// new transfer of one of them would only join the back of that queue, so it needs no
        /// wake-up. The loop drains the inbox whenever it runs, and it runs at the latest when
        /// one of that host's transfers ends, which is what lets the next one start.
        var backloggedHosts: [String] = []
        /// Transfers handed to the loop so far (for tests).
        var submitted = 0
    }

    private let commands = Mutex(Inbox())
    /// Set by the loop thread just before it releases `multi`.
    private let released = Atomic(false)
    /// Whether the loop has released libcurl's multi handle (for tests).
    var hasReleasedHandle: Bool { released.load(ordering: .sequentiallyConsistent) }
    /// Runs just before a wake-up is sent (a test seam: tests slow it down to widen races).
    let wakeUpProbe: (@Sendable () -> Void)?
    /// A code libcurl's multi handle is to fail with at the loop's next poll, instead of polling
    /// (a test seam: such failures come from a broken socket set or memory running out).
    let injectedPollFailure = Atomic<Int32>(0)
    /// Body bytes written to files so far, finished downloads or not (``CurlTransport/bodyBytesReceived``).
    let fileBodyBytes = RunningTotal()
    let statistics = Mutex(TransportStatistics())
    /// Whether a server could not be verified through the system's certificate folder, so new
    /// connections trust the whole system bundle (see ``TrustStore``).
    let trustsWholeBundle = Atomic(false)
    /// Hosts that could not be reached, until when they are failed fast.
    /// Hosts failed fast until an instant, with how they failed.
    let downHosts = Mutex<[String: (until: ContinuousClock.Instant, reason: String)]>([:])

    // Loop-thread state.
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]
    /// Every host asked this run: its waiting transfers and its connections.
    private var hosts: [String: HostQueue] = [:]
    /// Hosts with transfers waiting, in the order their first one arrived.
    private var waitingHosts: [String] = []
    private var stopping = false
    /// Signalled when the loop thread has cleaned up libcurl and is about to exit.
    private let stopped = DispatchSemaphore(value: 0)

    init(configuration: TransportConfiguration, wakeUpProbe: (@Sendable () -> Void)? = nil) throws(TransportError) {
        self.wakeUpProbe = wakeUpProbe
        guard photos_curl_global_init_once() == CURLE_OK, let multi = photos_curl_multi_init() else {
            throw .other(host: "", code: Int(CURLE_FAILED_INIT.rawValue), detail: "libcurl failed to initialise")
        }
        self.multi = multi
        self.configuration = configuration
        photos_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        photos_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, configuration.maxConnectionsPerHost))
        photos_curl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, max(1, configuration.maxConcurrentStreams))
        // libcurl's default keeps four idle connections per transfer it holds: as a burst winds
        // down it closes connections that the next burst (the next page of a save) would need
        // again. Keep every host's connections for the run.
        photos_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(32, 8 * configuration.maxConnectionsPerHost))
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
            // A transport whose multi handle failed says so to every later request; one shut
            // down was stopped, as a cancelled request is.
            if let failure = commands.withLock({ $0.failure }) {
                transfer.completion.complete(.failure(TransportError.other(host: transfer.host, code: failure.code, detail: failure.detail)))
            } else {
                transfer.completion.complete(.failure(CancellationError()))
            }
        }
    }
    func cancel(_ transfer: Transfer) { send(.cancel(transfer)) }

    /// Announces transfers about to be submitted, by host, so that a host's connections are
    /// planned for all of them at once (see ``HostAdmission``) rather than as they trickle in.
    /// Sends no wake-up: the first transfer's does.
    func expect(_ counts: [String: Int]) {
        guard !counts.isEmpty else { return }
        commands.withLock { commands in
            guard !commands.closed else { return }
            commands.queue.append(.expect(counts))
        }
    }

    /// Opens up to `count` connections to `host`, each of its own, ahead of the transfers that
    /// will use them: each by a HEAD request for `url`, whose answer is not used. The
    /// connections are counted as the host's (``HostAdmission``) once up; those the host has or
    /// is opening count towards `count`, and with `reserveOne` so does the one a transfer about
    /// to come will open. No transfer waits for them: the first of a host that has none opens
    /// its own. A failure is not reported: the transfers that follow meet it themselves.
    func preconnect(url: String, host: String, count: Int, reserveOne: Bool) {
        guard count > 0 else { return }
        send(.preconnect(url: url, host: host, count: count, reserveOne: reserveOne))
    }

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
        commands.withLock { commands in
            guard !commands.closed else { return false }
            if case .shutdown = command { commands.closed = true }
            commands.queue.append(command)
            if case .add = command { commands.submitted += 1 }
            // Each wake-up costs the loop a pass over every transfer it holds (libcurl polls each
            // one's socket), so a transfer that could not start anyway does not send one.
            if case .add(let transfer) = command, commands.backloggedHosts.contains(transfer.host) { return true }
            // The loop drains every queued command at once, so one wake-up serves all the
            // commands queued before it runs. It is sent under the lock: the loop releases
            // `multi` only after draining the command that closed the queue, which it cannot
            // take before this send is done, so no wake-up ever reaches a released handle. (Sent
            // after the lock, a cancel racing a shutdown could wake a handle the loop had just
            // cleaned up.)
            if !commands.wakeUpSent {
                commands.wakeUpSent = true
                wakeUpProbe?()
                photos_curl_multi_wakeup(multi)
            }
            return true
        }
    }

    /// Transfers handed to the loop so far, with whatever wake-up each sent (for tests).
    var submittedTransfers: Int { commands.withLock { $0.submitted } }

    /// Whether `host` had transfers waiting when the loop last went to sleep (for tests).
    func isBacklogged(_ host: String) -> Bool {
        commands.withLock { $0.backloggedHosts.contains(host) }
    }

    func isDown(_ host: String) -> Bool { downReason(host) != nil }

    /// How `host` failed, while it is failed fast; nil once it may be tried again.
    func downReason(_ host: String) -> String? {
        downHosts.withLock { hosts in
            guard let down = hosts[host] else { return nil }
            if down.until > .now { return down.reason }
            hosts[host] = nil
            return nil
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
            collectFinished()
            if startQueued() {
                continue  // freed slots were refilled or a connection came up: start them before sleeping
            }
            if !readyToSleep() {
                continue  // commands came in without a wake-up while libcurl ran
            }
            var ready: Int32 = 0
            let injected = injectedPollFailure.exchange(0, ordering: .relaxed)
            let polled = performed != CURLM_OK ? performed
                : injected != 0 ? CURLMcode(rawValue: .init(injected)) : photos_curl_multi_poll(multi, nil, 0, 1000, &ready)
            if polled != CURLM_OK && polled != CURLM_CALL_MULTI_PERFORM {
                // The multi handle itself failed (out of memory, a broken socket set): looping
                // on would spin. Every transfer fails with the reason and the loop stops.
                failEverything(code: polled)
                break
            }
        }
        released.store(true, ordering: .sequentiallyConsistent)
        photos_curl_multi_cleanup(multi)
    }

    private func failEverything(code: CURLMcode) {
        let detail = "libcurl's multi interface failed (\(code.rawValue)); photos cannot make requests this run"
        commands.withLock { commands in
            commands.closed = true
            commands.failure = (Int(code.rawValue), detail)
        }
        for transfer in active.values {
            if let easy = transfer.easy { photos_curl_multi_remove_handle(multi, easy) }
            transfer.releaseHandle()
            transfer.discardOutput()
            transfer.completion.complete(.failure(TransportError.other(host: transfer.host, code: Int(code.rawValue), detail: detail)))
        }
        active.removeAll()
        for transfer in takeAllWaiting() {
            transfer.discardOutput()
            transfer.completion.complete(.failure(TransportError.other(host: transfer.host, code: Int(code.rawValue), detail: detail)))
        }
    }

    /// Empties every host's queue and forgets the hosts; returns the transfers that waited.
    private func takeAllWaiting() -> [Transfer] {
        var waiting: [Transfer] = []
        for queue in hosts.values {
            waiting.append(contentsOf: queue.waiting[queue.head...])
        }
        hosts.removeAll()
        waitingHosts.removeAll()
        return waiting
    }

    /// Publishes which hosts have transfers waiting, so that more of theirs queue without a
    /// wake-up; false, and nothing published, when commands are queued: the loop must take them
    /// before it sleeps.
    private func readyToSleep() -> Bool {
        commands.withLock { commands in
            guard commands.queue.isEmpty else { return false }
            if commands.backloggedHosts != waitingHosts { commands.backloggedHosts = waitingHosts }
            return true
        }
    }

    private func drainCommands() {
        let pending = commands.withLock { commands in
            let taken = commands.queue
            commands.queue.removeAll(keepingCapacity: true)
            commands.wakeUpSent = false
            return taken
        }
        for command in pending {
            switch command {
            case .add(let transfer):
                if stopping {
                    transfer.discardOutput()
                    transfer.completion.complete(.failure(CancellationError()))
                } else if !transfer.completion.isCompleted {
                    enqueue(transfer)
                }
            case .cancel(let transfer):
                cancelTransfer(transfer)
            case .expect(let counts):
                guard !stopping else { break }
                for (host, count) in counts where count > 0 { hostQueue(host).expected += count }
            case .preconnect(let url, let host, let count, let reserveOne):
                guard !stopping, !isDown(host) else { break }
                openAhead(url: url, host: host, count: count, reserveOne: reserveOne)
            case .shutdown:
                stopping = true
                for transfer in active.values { cancelTransfer(transfer) }
                for transfer in takeAllWaiting() {
                    transfer.discardOutput()
                    transfer.completion.complete(.failure(CancellationError()))
                }
            }
        }
    }

    private func cancelTransfer(_ transfer: Transfer) {
        if let easy = transfer.easy, active.removeValue(forKey: easy) != nil {
            left(transfer)
            photos_curl_multi_remove_handle(multi, easy)
            transfer.releaseHandle()
        }
        transfer.discardOutput()
        // A transfer still queued is skipped when reached: it is completed from now on.
        transfer.completion.complete(.failure(CancellationError()))
    }

    /// How long a host's connections are assumed to outlive its last transfer: servers close
    /// idle HTTP/2 connections after a minute or more, libcurl after 118 s (CURLOPT_MAXAGE_CONN).
    static let connectionIdleLifetime: Duration = .seconds(30)

    private func hostQueue(_ host: String) -> HostQueue {
        if let known = hosts[host] { return known }
        let queue = HostQueue(admission: HostAdmission(
            streamsPerConnection: configuration.maxConcurrentStreams, maxConnections: configuration.maxConnectionsPerHost,
            queuedPerConnection: configuration.queuedTransfersPerConnection))
        hosts[host] = queue
        return queue
    }

    private func enqueue(_ transfer: Transfer) {
        let queue = hostQueue(transfer.host)
        if let idleSince = queue.idleSince, ContinuousClock.now - idleSince > Self.connectionIdleLifetime {
            queue.forgetConnections()
        }
        queue.idleSince = nil
        if queue.expected > 0 { queue.expected -= 1 }
        if queue.waitingCount == 0 { waitingHosts.append(transfer.host) }
        queue.waiting.append(transfer)
    }

    /// Moves waiting transfers into libcurl as their hosts' connections can take them, within
    /// `maxActiveTransfers` in all. Returns whether any started.
    @discardableResult
    private func startQueued() -> Bool {
        noteConnectedOpeners()
        var started = false
        var index = 0
        while index < waitingHosts.count {
            let host = waitingHosts[index]
            guard let queue = hosts[host] else {
                waitingHosts.remove(at: index)
                continue
            }
            if startWaiting(of: queue, host: host) { started = true }
            queue.compact()
            if queue.waitingCount == 0 {
                waitingHosts.remove(at: index)
            } else {
                index += 1
            }
        }
        return started
    }

    /// Starts what `queue`'s admission allows now. Returns whether any started.
    private func startWaiting(of queue: HostQueue, host: String) -> Bool {
        queue.skipCompleted()
        guard queue.waitingCount > 0 else { return false }
        if let reason = downReason(host) {
            while let transfer = queue.popFirst() {
                transfer.discardOutput()
                transfer.completion.complete(.failure(TransportError.hostDown(host: host, reason: reason)))
            }
            return false
        }
        // Planned for the transfers announced as well as those here: the connections they will
        // need start opening with the first of them, instead of one by one as they arrive.
        var plan = queue.admission.plan(waiting: queue.waitingCount + queue.expected)
        // What can start now: the transfers that are here, within the transport's own bound on
        // transfers in libcurl's hands (and so on memory).
        let room = min(queue.waitingCount, max(0, configuration.maxActiveTransfers - active.count))
        if plan.total > room {
            // Openers take the room first: a connection needs a handshake to come up, a free
            // stream nothing, and the transfers announced behind these need the connections.
            plan.openers = min(plan.openers, room)
            plan.regular = room - plan.openers
        }
        guard plan.total > 0 else { return false }
        var started = HostAdmission.Plan(openersFirst: plan.openersFirst)
        var openersLeft = plan.openers, regularLeft = plan.regular
        while openersLeft + regularLeft > 0, let transfer = queue.popFirst() {
            if transfer.completion.isCompleted { continue }
            let opener = plan.openersFirst ? openersLeft > 0 : regularLeft == 0
            // An extra connection's opener asks for a connection of its own: on one that came up
            // meanwhile it would take a stream the transfers waiting for that one were counted on.
            // So does a first connection's while connections asked for ahead come up: libcurl
            // would have it wait for one of those, which may never come.
            let fresh = opener && (!plan.openersFirst || queue.admission.preconnecting > 0)
            guard add(transfer, freshConnection: fresh) else { continue }
            if opener {
                openersLeft -= 1
                started.openers += 1
                transfer.role = .opening
                queue.openers.append(transfer)
            } else {
                regularLeft -= 1
                started.regular += 1
            }
        }
        queue.admission.started(started)
        return started.total > 0
    }

    private func openAhead(url: String, host: String, count: Int, reserveOne: Bool) {
        let queue = hostQueue(host)
        if let idleSince = queue.idleSince, ContinuousClock.now - idleSince > Self.connectionIdleLifetime {
            queue.forgetConnections()
        }
        for _ in 0..<queue.admission.preconnectRoom(count, reserveOne: reserveOne) {
            let transfer = Transfer(
                request: HTTPRequest(url: url, maxBodyBytes: 64 * 1024, totalTimeout: configuration.connectTimeout * 2, retryable: false),
                destination: .memory, host: host)
            transfer.isPreconnect = true
            transfer.completion.handle { _ in }
            // A connection of its own: on one that is up or coming up it would open nothing.
            guard add(transfer, freshConnection: true) else { continue }
            transfer.role = .opening
            queue.openers.append(transfer)
            queue.idleSince = nil
            queue.admission.startedPreconnect()
        }
    }

    /// Hands `transfer` to libcurl; on failure completes it with the error. Returns whether it
    /// was added.
    private func add(_ transfer: Transfer, freshConnection: Bool = false) -> Bool {
        transfer.fileBodyCounter = fileBodyBytes
        do {
            let easy = try transfer.makeHandle(configuration: configuration, wholeBundle: trustsWholeBundle.load(ordering: .relaxed))
            if freshConnection { photos_curl_easy_setopt_long(easy, CURLOPT_FRESH_CONNECT, 1) }
            let code = photos_curl_multi_add_handle(multi, easy)
            guard code == CURLM_OK else {
                transfer.releaseHandle()
                throw TransportError.other(host: transfer.host, code: Int(code.rawValue), detail: "curl_multi_add_handle failed")
            }
            active[easy] = transfer
            return true
        } catch {
            transfer.discardOutput()
            transfer.completion.complete(.failure(error))
            return false
        }
    }

    /// Resolves the openers whose request went out: on a connection of their own, whose streams
    /// are now open to the transfers that wait, or on one that came up meanwhile.
    private func noteConnectedOpeners() {
        for queue in hosts.values where !queue.openers.isEmpty {
            queue.openers.removeAll { transfer in
                guard transfer.requestSent else { return false }
                transfer.role = .resolved
                queue.admission.openerResolved(newConnection: queue.learnConnection(of: transfer), preconnect: transfer.isPreconnect)
                return true
            }
        }
    }

    /// Accounts for `transfer` leaving libcurl (finished or cancelled); call it while its handle
    /// still exists.
    private func left(_ transfer: Transfer) {
        guard let queue = hosts[transfer.host] else { return }
        let sent = transfer.requestSent
        let new = sent && queue.learnConnection(of: transfer)
        switch transfer.role {
        case .opening:
            transfer.role = .resolved
            queue.openers.removeAll { $0 === transfer }
            queue.admission.finished(openerStillOpening: true, requestSent: sent, newConnection: new, preconnect: transfer.isPreconnect)
        case .resolved, .regular:
            queue.admission.finished(openerStillOpening: false, requestSent: sent, newConnection: new)
        }
        if queue.admission.active == 0 {
            queue.idleSince = .now
            // Nothing in flight and nothing waiting: what was announced and never came (the
            // caller was cancelled, or shared a download) is forgotten.
            if queue.waitingCount == 0 { queue.expected = 0 }
        }
    }

    /// Completes every finished transfer. Returns whether any finished.
    @discardableResult
    private func collectFinished() -> Bool {
        var finished = false
        var easy: UnsafeMutableRawPointer?
        var code = CURLE_OK
        while photos_curl_multi_next_done(multi, &easy, &code) {
            guard let handle = easy, let transfer = active.removeValue(forKey: handle) else { continue }
            let openerNeverSent = transfer.role == .opening && !transfer.requestSent
            left(transfer)
            photos_curl_multi_remove_handle(multi, handle)
            if openerNeverSent, Self.isConnectFailure(code), let queue = hosts[transfer.host], queue.admission.connections > 0 {
                // An extra connection did not come up, but the host's others work: the host gets
                // no more connections, and the transfer waits for them instead of failing (one
                // asked for ahead simply ends).
                queue.admission.stopGrowing()
            }
            if openerNeverSent, !transfer.isPreconnect, Self.isConnectFailure(code), let queue = hosts[transfer.host], queue.admission.connections > 0 {
                transfer.releaseHandle()
                transfer.role = .regular
                queue.requeueFirst(transfer)
                if !waitingHosts.contains(transfer.host) { waitingHosts.append(transfer.host) }
                finished = true
                continue
            }
            let result = transfer.finish(code: code)
            // A certificate that could not be verified with the last trust there is will not be
            // for the rest of the run: the host is failed fast, as one that cannot be reached
            // is, and its waiting transfers fail at once instead of each making a handshake of
            // its own (1,000 thumbnails made 1,178 connections).
            if code == CURLE_PEER_FAILED_VERIFICATION, transfer.trustIsFinal, case .failure(let error as TransportError) = result {
                let until = ContinuousClock.now + configuration.hostDownInterval
                downHosts.withLock { $0[transfer.host] = (until, CurlTransport.downReason(error)) }
            }
            // A HEAD that opened a connection ahead counts for its connection only.
            record(transfer.isPreconnect ? nil : result, connections: transfer.connectionsOpened)
            transfer.completion.complete(result)
            finished = true
            // A host whose connection could not be set up within the connect timeout (it accepts
            // and never answers, or drops what is sent to it), while it has none that works: the
            // host is failed fast now, with the transfers libcurl holds that wait for a
            // connection to it. Left to libcurl, each of those would open one in turn and wait
            // out the timeout again (a silent image host took 10 s per thumbnail, one after
            // another).
            if !transfer.isPreconnect, case .failure(let error as TransportError) = result, case .timedOut(_, .connect) = error,
                (hosts[transfer.host]?.admission.connections ?? 0) == 0
            {
                failConnecting(transfer.host, reason: CurlTransport.downReason(error))
            }
        }
        return finished
    }

    /// Marks `host` down for `reason` and fails its transfers in libcurl whose request has not
    /// gone out (they wait for a connection) with ``TransportError/hostDown(host:reason:)``; its
    /// queued transfers fail as they are reached.
    private func failConnecting(_ host: String, reason: String) {
        let until = ContinuousClock.now + configuration.hostDownInterval
        downHosts.withLock { $0[host] = (until, reason) }
        // Connections asked for ahead are left to end on their own: no transfer waits for
        // them, and the host's accounting of them is theirs.
        let waiting = active.filter { $0.value.host == host && !$0.value.isPreconnect && !$0.value.requestSent }
        for (easy, transfer) in waiting {
            active.removeValue(forKey: easy)
            left(transfer)
            photos_curl_multi_remove_handle(multi, easy)
            transfer.releaseHandle()
            transfer.discardOutput()
            record(.failure(TransportError.hostDown(host: host, reason: reason)), connections: 0)
            transfer.completion.complete(.failure(TransportError.hostDown(host: host, reason: reason)))
        }
    }

    /// Failures of a connection that never came up: it could not be made, or its TCP or TLS
    /// handshake outlasted the connect timeout.
    static func isConnectFailure(_ code: CURLcode) -> Bool {
        code == CURLE_COULDNT_CONNECT || code == CURLE_OPERATION_TIMEDOUT || code == CURLE_SSL_CONNECT_ERROR
    }

    private func record(_ result: Result<HTTPResponse, any Error>?, connections: Int) {
        statistics.withLock { statistics in
            statistics.connectionsOpened += connections
            switch result {
            case nil:
                break
            case .success(let response):
                statistics.transfersByVersion[response.httpVersion, default: 0] += 1
                statistics.bytesReceived += response.bytes
            case .failure:
                statistics.failedTransfers += 1
            }
        }
    }
}

/// One host's transfers on the loop thread: those waiting for libcurl, in order, the openers
/// whose connection is not up yet, the connections seen (by local port), and the admission that
/// decides when the next transfers start.
private final class HostQueue {
    var admission: HostAdmission
    var waiting: [Transfer] = []
    var head = 0
    /// Transfers announced (``CurlLoop/expect(_:)``) that have not arrived yet.
    var expected = 0
    var openers: [Transfer] = []
    /// Local ports of the connections this host's transfers went out on.
    var ports: Set<Int> = []
    /// When the last transfer in libcurl's hands left, while none is.
    var idleSince: ContinuousClock.Instant?

    init(admission: HostAdmission) {
        self.admission = admission
    }

    var waitingCount: Int { waiting.count - head }

    /// Records the connection `transfer` went out on; returns whether it was not known yet.
    func learnConnection(of transfer: Transfer) -> Bool {
        let port = transfer.localPort
        return port != 0 && ports.insert(port).inserted
    }

    func forgetConnections() {
        admission.forgetConnections()
        ports.removeAll()
    }

    /// Puts `transfer` back at the front of the queue, to start before the others.
    func requeueFirst(_ transfer: Transfer) {
        if head > 0 {
            head -= 1
            waiting[head] = transfer
        } else {
            waiting.insert(transfer, at: 0)
        }
    }

    func popFirst() -> Transfer? {
        guard head < waiting.count else { return nil }
        defer { head += 1 }
        return waiting[head]
    }

    /// Drops cancelled transfers from the front, so that they are not counted as waiting.
    func skipCompleted() {
        while head < waiting.count, waiting[head].completion.isCompleted { head += 1 }
    }

    /// Frees the slots of transfers already taken.
    func compact() {
        if head == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024 {
            waiting.removeFirst(head)
            head = 0
        }
    }
}
