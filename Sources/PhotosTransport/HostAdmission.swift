/// Connections by need, for one host: how many of its transfers libcurl may have at once, and
/// which of them are to open a connection of their own.
///
/// libcurl 7.88 (Debian 12) places a transfer on a connection whose HTTP/2 streams are not all in
/// use (the server's SETTINGS_MAX_CONCURRENT_STREAMS, capped by CURLMOPT_MAX_CONCURRENT_STREAMS),
/// and with CURLOPT_PIPEWAIT the transfers that arrive while a host's first connection is being
/// set up wait for it. Past that first connection it is eager: every transfer it cannot place
/// opens a connection of its own, up to CURLMOPT_MAX_HOST_CONNECTIONS, because a connection still
/// being set up is not offered for reuse. 102 transfers at 100 streams opened three connections
/// where two are enough, 105 opened six. So the loop hands libcurl a host's transfers in step
/// with the connections they need:
///
/// - No connection yet: one connection's worth of streams. The first of them opens the
///   connection ("opener"), the rest wait for it (PIPEWAIT).
/// - Connections known: their streams, and, only when every one of them is taken and more
///   transfers wait, one opener per connection those transfers need, up to `maxConnections`.
///   Such an opener asks libcurl for a connection of its own (CURLOPT_FRESH_CONNECT): placed on
///   one that came up meanwhile, it would take a stream the transfers waiting for that one were
///   counted on. The rest follow once an opener's request has gone out: its connection is then
///   set up and libcurl multiplexes onto it.
/// - Transfers announced but not arrived yet (``CurlTransport/expectRequests(for:)``) count as
///   waiting in the plan, not in what starts: a burst whose transfers arrive a few at a time
///   starts the openers of all the connections it needs with its first transfers past the
///   streams there are, instead of one each time another connection's worth has arrived.
///
/// Connections are counted as libcurl uses them, not as planned: the loop tells one connection
/// from another by its local port. The first connection's opener may find that connection
/// already up (one kept from an earlier burst), counted only if it was not known yet; the next
/// plan then starts another opener if the waiting still need one. A transfer that libcurl put on a
/// connection not known yet (one it opened unasked, or one kept from an earlier burst) is counted
/// when it finishes. Connections stay counted between bursts, as libcurl keeps them
/// (CURLMOPT_MAXCONNECTS), until the host has been idle long enough for them to be closed.
///
/// Once every connection libcurl may open to the host is up, the loop also hands libcurl up to
/// `queuedPerConnection` transfers per connection past their streams. libcurl keeps them
/// pending (it may open no more connections) and starts each on the first stream that frees,
/// within the same pass over its transfers. A pass over hundreds of transfers receiving data
/// can take tens of milliseconds; without transfers pending inside libcurl, the streams freed
/// during it would stay idle until the pass ends and the loop hands over the next transfers.
///
/// When the server allows fewer streams than `streamsPerConnection`, libcurl itself opens more
/// connections for the transfers its streams cannot take; CURLMOPT_MAX_HOST_CONNECTIONS still
/// caps them at `maxConnections`.
struct HostAdmission: Equatable {
    /// Streams the transport asks for per connection (the server may allow fewer).
    let streamsPerConnection: Int
    /// The most connections to this host.
    let maxConnections: Int
    /// Transfers per connection handed to libcurl past the streams, to wait there for one, once
    /// every connection is up.
    let queuedPerConnection: Int

    /// Transfers handed to libcurl, openers included.
    private(set) var active = 0
    /// Connections known to carry this host's transfers in this burst.
    private(set) var connections = 0
    /// Openers whose connection is not up yet.
    private(set) var opening = 0
    /// Those of `opening` that open a connection asked for ahead (a HEAD request, see
    /// ``preconnectRoom(_:reserveOne:)``): no transfer of the host's is waiting for them.
    private(set) var preconnecting = 0
    /// The most connections while an extra one failed to come up: the host takes no more for now.
    private(set) var growthCap: Int?

    /// What to start now: `regular` transfers and `openers` that each open a connection.
    struct Plan: Equatable {
        var regular = 0
        var openers = 0
        /// Whether libcurl must see the openers before the regular transfers: true for a host's
        /// first connection, whose waiters need an opener to wait for; false when the regular
        /// transfers fill streams of connections that are up and the openers take what is left.
        var openersFirst = false

        var total: Int { regular + openers }
    }

    init(streamsPerConnection: Int, maxConnections: Int, queuedPerConnection: Int = 0) {
        self.streamsPerConnection = max(1, streamsPerConnection)
        self.maxConnections = max(1, maxConnections)
        self.queuedPerConnection = max(0, queuedPerConnection)
    }

    /// What may start now while `waiting` transfers of this host wait.
    func plan(waiting: Int) -> Plan {
        guard waiting > 0 else { return Plan() }
        let streams = streamsPerConnection
        if connections == 0 {
            // The first connection: its opener, and as many waiters as its streams can take.
            // Connections asked for ahead do not count: were one never to come up, the
            // transfers would have waited for it in vain.
            let start = min(waiting, max(0, streams - (active - preconnecting)))
            guard start > 0 else { return Plan() }
            let opener = opening - preconnecting == 0 ? 1 : 0
            return Plan(regular: start - opener, openers: opener, openersFirst: true)
        }
        // libcurl may open no more connections: transfers past the streams wait inside it.
        let queued = connections >= maxConnections ? queuedPerConnection * connections : 0
        let free = max(0, streams * connections + queued - (active - opening))
        let regular = min(waiting, free)
        // Every stream of the connections that are up is taken: the rest need connections,
        // less what the connections being opened will take once they are up.
        let unplaced = max(0, waiting - regular - (streams - 1) * opening)
        let room = max(0, min(maxConnections, growthCap ?? maxConnections) - connections - opening)
        let openers = min(room, (unplaced + streams - 1) / streams)
        return Plan(regular: regular, openers: openers, openersFirst: false)
    }

    /// How many connections to open ahead now so that the host has `count` (at most the cap):
    /// those it has and is opening count towards it. With `reserveOne`, a transfer about to
    /// come opens one of them itself, unless the host has or is opening one already.
    func preconnectRoom(_ count: Int, reserveOne: Bool) -> Int {
        let reserved = reserveOne && connections == 0 && opening - preconnecting == 0 ? 1 : 0
        return max(0, min(count, maxConnections, growthCap ?? maxConnections) - connections - opening - reserved)
    }

    /// Records an opener of a connection asked for ahead.
    mutating func startedPreconnect() {
        active += 1
        opening += 1
        preconnecting += 1
    }

    /// Records that `plan` was started.
    mutating func started(_ plan: Plan) {
        active += plan.total
        opening += plan.openers
    }

    /// An opener's request went out, on a connection not known before (`newConnection`: it
    /// opened one, or found one from an earlier burst) or on a known one that had room by then.
    mutating func openerResolved(newConnection: Bool, preconnect: Bool = false) {
        guard opening > 0 else { return }
        opening -= 1
        if preconnect { preconnecting = max(0, preconnecting - 1) }
        if newConnection { addConnection() }
    }

    /// A transfer left libcurl (finished, failed or cancelled).
    /// - Parameters:
    ///   - openerStillOpening: it was an opener not resolved yet.
    ///   - requestSent: its request went out.
    ///   - newConnection: its request went out on a connection not known before.
    mutating func finished(openerStillOpening: Bool, requestSent: Bool, newConnection: Bool, preconnect: Bool = false) {
        active = max(0, active - 1)
        if openerStillOpening && requestSent {
            openerResolved(newConnection: newConnection, preconnect: preconnect)
        } else if openerStillOpening {
            opening = max(0, opening - 1)  // it never got a connection: its place goes to the next
            if preconnect { preconnecting = max(0, preconnecting - 1) }
        } else if newConnection && requestSent {
            addConnection()
        }
    }

    /// An extra connection did not come up (it timed out or was refused) while the host's other
    /// connections carry transfers: open no more until the host is forgotten, and let the waiting
    /// transfers share the connections it has.
    mutating func stopGrowing() {
        growthCap = max(1, connections)
    }

    /// Forgets the connections of a host that has been idle long enough for libcurl or the
    /// server to have closed them: the next burst starts again from one, free to grow.
    mutating func forgetConnections() {
        guard active == 0 else { return }
        connections = 0
        growthCap = nil
    }

    private mutating func addConnection() {
        connections = min(connections + 1, maxConnections)
    }
}
