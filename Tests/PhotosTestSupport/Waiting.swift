import Testing

/// Polls `condition` every 5 ms until it holds, recording an issue once `timeout` has passed
/// and at least as many polls have been made as fit in it: on a machine busy enough to starve
/// the cooperative pool, the tasks the condition waits for get the time the polls got.
public func waitUntil(
    timeout: Duration = .seconds(5), sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) async throws {
    let interval = Duration.milliseconds(5)
    let deadline = ContinuousClock.now + timeout
    let polls = Int(timeout / interval)
    var made = 0
    while !condition() {
        guard ContinuousClock.now < deadline || made < polls else {
            Issue.record("condition not met within \(timeout)", sourceLocation: sourceLocation)
            return
        }
        made += 1
        try await Task.sleep(for: interval)
    }
}
