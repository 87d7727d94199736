import Foundation
import PhotosImaging

/// Thumbnails rendered for the terminal, kept in memory for the screens around the one shown.
///
/// The session says which pictures it wants, most wanted first (the screen, then the next);
/// worker threads decode and render them off the interface's thread, and report each one done.
/// At most `capacity` pictures are kept: the least recently used go first, so scrolling through
/// thousands of photos holds a bounded number of rendered tiles and no decoded image at all.
final class PictureStore: @unchecked Sendable {
    struct Key: Hashable, Sendable {
        var file: String
        var box: CellSize
    }

    private struct Entry {
        var tile: RenderedTile
        var used: Int
    }

    private let condition = NSCondition()
    private var done: [Key: Entry] = [:]
    private var failed: Set<Key> = []
    private var wanted: [Key] = []
    /// Everything last wanted, rendered or not: never evicted.
    private var pinned: Set<Key> = []
    private var busy: Set<Key> = []
    private var clock = 0
    private var stopped = false
    private var threads: [Thread] = []
    private var running = 0

    let capacity: Int
    private let graphics: TerminalGraphics
    private let diskCache: TileCache?
    private let rendered: @Sendable (Key) -> Void

    /// - Parameters:
    ///   - capacity: rendered pictures kept in memory.
    ///   - workers: threads rendering at once.
    ///   - rendered: called on a worker thread when a picture is ready (or failed).
    init(graphics: TerminalGraphics, diskCache: TileCache?, capacity: Int, workers: Int = 2, rendered: @escaping @Sendable (Key) -> Void) {
        self.graphics = graphics
        self.diskCache = diskCache
        self.capacity = max(1, capacity)
        self.rendered = rendered
        for number in 0..<max(1, workers) {
            let thread = Thread { [weak self] in self?.work() }
            thread.name = "photos-render-\(number)"
            threads.append(thread)
        }
        running = threads.count
        for thread in threads { thread.start() }
    }

    /// The picture for `key`, when rendered.
    func picture(_ key: Key) -> RenderedTile? {
        condition.lock()
        defer { condition.unlock() }
        guard var entry = done[key] else { return nil }
        clock += 1
        entry.used = clock
        done[key] = entry
        return entry.tile
    }

    /// Whether `key` could not be rendered (an unreadable or corrupt image).
    func hasFailed(_ key: Key) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return failed.contains(key)
    }

    /// Replaces what the workers render next, most wanted first. Pictures no longer wanted are
    /// not started; those kept are never evicted while wanted.
    func want(_ keys: [Key]) {
        condition.lock()
        pinned = Set(keys)
        wanted = keys.filter { done[$0] == nil && !failed.contains($0) }
        if !wanted.isEmpty { condition.broadcast() }
        condition.unlock()
    }

    /// Stops the workers and waits for a picture being rendered to finish.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    /// Pictures held now (for tests and the memory bound).
    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return done.count
    }

    private func work() {
        condition.lock()
        while true {
            if stopped { break }
            guard let index = wanted.firstIndex(where: { !busy.contains($0) }) else {
                condition.wait()
                continue
            }
            let key = wanted.remove(at: index)
            if done[key] != nil || failed.contains(key) { continue }
            busy.insert(key)
            condition.unlock()
            let tile = try? Preview.tile(path: URL(fileURLWithPath: key.file), box: key.box, graphics: graphics, cache: diskCache)
            condition.lock()
            busy.remove(key)
            if let tile {
                clock += 1
                done[key] = Entry(tile: tile, used: clock)
                evict()
            } else {
                failed.insert(key)
            }
            condition.unlock()
            rendered(key)
            condition.lock()
        }
        running -= 1
        condition.broadcast()
        condition.unlock()
    }

    /// Drops the least recently used pictures beyond `capacity`. Called with the lock held.
    private func evict() {
        guard done.count > capacity else { return }
        let victims = done.filter { !pinned.contains($0.key) }.sorted { $0.value.used < $1.value.used }
        for (key, _) in victims.prefix(done.count - capacity) { done[key] = nil }
    }
}
