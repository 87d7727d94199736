import Testing

@testable import PhotosTransport

/// Connections by need, decided without a network: what the loop hands libcurl for one host.
@Suite struct HostAdmissionTests {
    typealias Plan = HostAdmission.Plan

    /// Starts what `admission` plans for `waiting` transfers and returns the plan.
    @discardableResult
    static func start(_ admission: inout HostAdmission, waiting: Int) -> Plan {
        let plan = admission.plan(waiting: waiting)
        admission.started(plan)
        return plan
    }

    @Test func aSmallBatchGoesOnTheFirstConnectionBehindItsOpener() {
        var admission = HostAdmission(streamsPerConnection: 100, maxConnections: 6)
        #expect(Self.start(&admission, waiting: 30) == Plan(regular: 29, openers: 1, openersFirst: true))
        #expect(admission.plan(waiting: 0) == Plan())
        admission.openerResolved(newConnection: true)
        #expect(admission.connections == 1 && admission.opening == 0)
        // Thirty in flight on a connection of a hundred streams: room for seventy more, no opener.
        #expect(admission.plan(waiting: 70) == Plan(regular: 70, openers: 0))
    }

    @Test func moreConnectionsOpenOnlyWhenEveryStreamIsTakenAndOnlyAsManyAsTheWaitingNeed() {
        var admission = HostAdmission(streamsPerConnection: 100, maxConnections: 6)
        #expect(Self.start(&admission, waiting: 1000) == Plan(regular: 99, openers: 1, openersFirst: true))
        // Until the first connection is up, nothing more: its streams may be all it takes.
        #expect(admission.plan(waiting: 900) == Plan())
        admission.openerResolved(newConnection: true)
        // 900 wait and the hundred streams are taken: nine connections' worth, capped at five more.
        #expect(Self.start(&admission, waiting: 900) == Plan(regular: 0, openers: 5))
        #expect(admission.plan(waiting: 895) == Plan(), "nothing until an opener's connection is up")
        admission.openerResolved(newConnection: true)
        #expect(Self.start(&admission, waiting: 895) == Plan(regular: 99, openers: 0))
        for _ in 0..<4 { admission.openerResolved(newConnection: true) }
        #expect(Self.start(&admission, waiting: 796) == Plan(regular: 396, openers: 0))
        #expect(admission.active == 600 && admission.connections == 6)
        #expect(admission.plan(waiting: 400) == Plan(), "the cap: six connections of a hundred streams")
        admission.finished(openerStillOpening: false, requestSent: true, newConnection: false)
        #expect(admission.plan(waiting: 400) == Plan(regular: 1, openers: 0))
    }

    @Test func twoTransfersPastOneConnectionOpenOneMoreNotTwo() {
        var admission = HostAdmission(streamsPerConnection: 100, maxConnections: 6)
        Self.start(&admission, waiting: 102)
        admission.openerResolved(newConnection: true)
        #expect(Self.start(&admission, waiting: 2) == Plan(regular: 0, openers: 1))
        // The second waits for the new connection rather than opening a third.
        #expect(admission.plan(waiting: 1) == Plan())
        admission.openerResolved(newConnection: true)
        #expect(admission.plan(waiting: 1) == Plan(regular: 1, openers: 0))
    }

    @Test func freedStreamsAreFilledBeforeAnyConnectionIsOpened() {
        var admission = HostAdmission(streamsPerConnection: 10, maxConnections: 6)
        Self.start(&admission, waiting: 10)
        admission.openerResolved(newConnection: true)
        for _ in 0..<3 { admission.finished(openerStillOpening: false, requestSent: true, newConnection: false) }
        #expect(admission.plan(waiting: 3) == Plan(regular: 3, openers: 0))
        #expect(admission.plan(waiting: 13) == Plan(regular: 3, openers: 1))
    }

    @Test func aCapOfOneNeverOpensASecondConnection() {
        var admission = HostAdmission(streamsPerConnection: 10, maxConnections: 1)
        #expect(Self.start(&admission, waiting: 50) == Plan(regular: 9, openers: 1, openersFirst: true))
        admission.openerResolved(newConnection: true)
        #expect(admission.plan(waiting: 40) == Plan())
        admission.finished(openerStillOpening: false, requestSent: true, newConnection: false)
        #expect(admission.plan(waiting: 40) == Plan(regular: 1, openers: 0))
    }

    @Test func transfersWaitInsideLibcurlOnlyOnceEveryConnectionIsUp() {
        var admission = HostAdmission(streamsPerConnection: 10, maxConnections: 2, queuedPerConnection: 5)
        #expect(Self.start(&admission, waiting: 50) == Plan(regular: 9, openers: 1, openersFirst: true))
        admission.openerResolved(newConnection: true)
        // One connection of two: libcurl could open another for any transfer past the streams.
        #expect(Self.start(&admission, waiting: 40) == Plan(regular: 0, openers: 1))
        admission.openerResolved(newConnection: true)
        // Both up: their streams, and five per connection to wait inside libcurl.
        #expect(admission.plan(waiting: 39) == Plan(regular: 19, openers: 0))
        #expect(Self.start(&admission, waiting: 39) == Plan(regular: 19, openers: 0))
        #expect(admission.plan(waiting: 20) == Plan())
        admission.finished(openerStillOpening: false, requestSent: true, newConnection: false)
        #expect(admission.plan(waiting: 20) == Plan(regular: 1, openers: 0))
    }

    @Test func connectionsAskedForAheadHoldNoTransferBack() {
        var admission = HostAdmission(streamsPerConnection: 100, maxConnections: 6)
        // Five wanted, one of them the listing's own: four opened ahead.
        #expect(admission.preconnectRoom(5, reserveOne: true) == 4)
        for _ in 0..<4 { admission.startedPreconnect() }
        #expect(admission.preconnectRoom(5, reserveOne: true) == 0)
        // The listing still opens a connection of its own rather than wait for theirs.
        #expect(Self.start(&admission, waiting: 1) == Plan(regular: 0, openers: 1, openersFirst: true))
        // One ahead never comes up; the others and the listing's do.
        admission.finished(openerStillOpening: true, requestSent: false, newConnection: false, preconnect: true)
        for _ in 0..<3 { admission.openerResolved(newConnection: true, preconnect: true) }
        admission.openerResolved(newConnection: true)
        #expect(admission.connections == 4 && admission.opening == 0 && admission.preconnecting == 0)
        // Asked again for five: one more.
        #expect(admission.preconnectRoom(5, reserveOne: true) == 1)
    }

    @Test func anOpenerThatFailsGivesItsPlaceToTheNext() {
        var admission = HostAdmission(streamsPerConnection: 100, maxConnections: 6)
        Self.start(&admission, waiting: 300)
        admission.openerResolved(newConnection: true)
        Self.start(&admission, waiting: 200)
        #expect(admission.opening == 2)
        // One could not connect; the other finished before its request was seen going out.
        admission.finished(openerStillOpening: true, requestSent: false, newConnection: true)
        admission.finished(openerStillOpening: true, requestSent: true, newConnection: true)
        #expect(admission.opening == 0 && admission.connections == 2 && admission.active == 100)
        #expect(admission.plan(waiting: 198) == Plan(regular: 100, openers: 1))
    }

    @Test func anOpenerPlacedOnAConnectionThatCameUpMeanwhileIsNotCounted() {
        var admission = HostAdmission(streamsPerConnection: 100, maxConnections: 6)
        Self.start(&admission, waiting: 400)
        admission.openerResolved(newConnection: true)
        #expect(Self.start(&admission, waiting: 300) == Plan(regular: 0, openers: 3))
        // One opener's connection came up, and the other two found room on it before they
        // could open their own: one connection more, not three.
        admission.openerResolved(newConnection: true)
        admission.openerResolved(newConnection: false)
        admission.openerResolved(newConnection: false)
        #expect(admission.connections == 2 && admission.opening == 0)
        // 103 in flight on two connections: 97 more fit, and the last 100 need one more.
        #expect(admission.plan(waiting: 297) == Plan(regular: 97, openers: 2))
    }

    @Test func aConnectionLibcurlOpenedUnaskedIsCounted() {
        var admission = HostAdmission(streamsPerConnection: 10, maxConnections: 6)
        Self.start(&admission, waiting: 10)
        admission.openerResolved(newConnection: true)
        admission.finished(openerStillOpening: false, requestSent: true, newConnection: true)
        #expect(admission.connections == 2)
        // A transfer that never got as far as its request proves nothing.
        admission.finished(openerStillOpening: false, requestSent: false, newConnection: true)
        #expect(admission.connections == 2)
    }

    @Test func aHostIdleLongEnoughStartsAgainFromOneConnection() {
        var admission = HostAdmission(streamsPerConnection: 100, maxConnections: 6)
        Self.start(&admission, waiting: 150)
        admission.openerResolved(newConnection: true)
        Self.start(&admission, waiting: 50)
        admission.openerResolved(newConnection: true)
        #expect(admission.connections == 2)
        admission.forgetConnections()
        #expect(admission.connections == 2, "not while transfers are in flight")
        for _ in 0..<101 { admission.finished(openerStillOpening: false, requestSent: true, newConnection: false) }
        admission.forgetConnections()
        #expect(admission.connections == 0)
        #expect(admission.plan(waiting: 300) == Plan(regular: 99, openers: 1, openersFirst: true))
    }

    @Test func connectionsStayCountedAfterABurst() {
        var admission = HostAdmission(streamsPerConnection: 100, maxConnections: 6)
        Self.start(&admission, waiting: 250)
        admission.openerResolved(newConnection: true)
        Self.start(&admission, waiting: 150)
        admission.openerResolved(newConnection: true)
        admission.openerResolved(newConnection: true)
        for _ in 0..<102 { admission.finished(openerStillOpening: false, requestSent: true, newConnection: false) }
        #expect(admission.active == 0 && admission.connections == 3)
        // The next page's 300 go straight onto the three connections libcurl kept.
        #expect(admission.plan(waiting: 300) == Plan(regular: 300, openers: 0))
    }

    @Test func anExtraConnectionThatFailsStopsTheGrowthUntilTheHostIsForgotten() {
        var admission = HostAdmission(streamsPerConnection: 10, maxConnections: 6)
        Self.start(&admission, waiting: 50)
        admission.openerResolved(newConnection: true)
        #expect(Self.start(&admission, waiting: 40) == Plan(regular: 0, openers: 4))
        for _ in 0..<4 { admission.finished(openerStillOpening: true, requestSent: false, newConnection: false) }
        admission.stopGrowing()
        #expect(admission.plan(waiting: 44) == Plan(), "the one connection's streams are taken, and no opener")
        for _ in 0..<10 { admission.finished(openerStillOpening: false, requestSent: true, newConnection: false) }
        #expect(admission.plan(waiting: 44) == Plan(regular: 10, openers: 0))
        admission.forgetConnections()
        #expect(admission.plan(waiting: 44) == Plan(regular: 9, openers: 1, openersFirst: true), "free to grow again")
    }
}
