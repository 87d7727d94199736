import Foundation
import GRDB

extension PhotoCache {
    /// A photo id from a cached listing, with its title, for shell completion.
    public struct CompletionCandidate: Sendable, Equatable {
        public var id: String
        public var title: String
    }

    /// Ids of photos in the most recently used cached listings whose id starts with `prefix`,
    /// most recent listing first, each id once.
    ///
    /// Runs on every Tab press, so it does as little as possible: opens the index read-only,
    /// never creates, migrates, locks or repairs anything, never touches the network, and
    /// answers an empty list for a missing, busy or broken index.
    /// - Parameters:
    ///   - root: the cache folder (holding `index.sqlite`).
    ///   - prefix: what has been typed of the id so far.
    ///   - limit: the most candidates returned.
    public static func recentPhotoIDs(root: URL, prefix: String, limit: Int = 200) -> [CompletionCandidate] {
        let path = root.appendingPathComponent(CacheIndex.fileName).path
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(0.05)
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            return try queue.read { db in
                let pattern = prefix.replacingOccurrences(of: "\\", with: "\\\\")
                    .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
                let rows = try Row.fetchCursor(
                    db,
                    sql: """
                        SELECT listing_photo.photo_id, photo.title
                        FROM listing
                        JOIN listing_photo ON listing_photo.listing_id = listing.id
                        LEFT JOIN photo ON photo.id = listing_photo.photo_id
                        WHERE listing_photo.photo_id LIKE ? ESCAPE '\\'
                        ORDER BY listing.last_access DESC, listing_photo.position ASC
                        """,
                    arguments: [pattern])
                var seen = Set<String>()
                var candidates: [CompletionCandidate] = []
                while let row = try rows.next(), candidates.count < limit {
                    // LIKE ignores ASCII case; completion does not. A value of another type
                    // (a damaged index) is skipped, never trapped on.
                    guard let id: String = row.value(at: 0), id.hasPrefix(prefix), seen.insert(id).inserted else { continue }
                    candidates.append(CompletionCandidate(id: id, title: row.value(at: 1) ?? ""))
                }
                return candidates
            }
        } catch {
            return []
        }
    }
}
