import Foundation
import FuzzSupport
import GRDB
import PhotosCache
import PhotosCore

// The cache's listing records as read back from the index: the fuzz input becomes the stored
// listing's columns (total, has_more, validators, fetched_at, stored_at) and up to five photo
// rows, each column NULL, an integer, a real, text or a blob, as a tampered or damaged index
// might hold them. The cache then serves the page offline, then normally (its provider is down,
// so an old page is served stale), looks each photo up and counts its statistics. Nothing read
// from the disk may crash photos: a finding is a crash, a hang, runaway memory, or an age (of a
// page, of the oldest entry) that is not a number of seconds photos can print.

/// A provider that is always down: stale pages are served from the index.
struct DownProvider: PhotoProvider {
    let name = "stub"
    let maxPerPage = 30
    func list(_ query: ListQuery) async throws -> PhotoPage {
        throw PhotosError.unavailable(provider: name, detail: "down for fuzzing")
    }
    func detail(_ id: PhotoID) async throws -> PhotoDetail { throw PhotosError.notFound(id) }
    func isValidID(_ raw: String) -> Bool { !raw.isEmpty }
}

/// A provider with one page of one photo, to create the index and the listing row.
struct SeedProvider: PhotoProvider {
    let name = "stub"
    let maxPerPage = 30
    func list(_ query: ListQuery) async throws -> PhotoPage {
        let photo = Photo(id: PhotoID(provider: name, raw: "0"), title: "seed", thumbnailURL: "https://example.com/0.jpg")
        return PhotoPage(page: 1, perPage: 30, total: 1, hasMore: false, photos: [photo])
    }
    func detail(_ id: PhotoID) async throws -> PhotoDetail { throw PhotosError.notFound(id) }
    func isValidID(_ raw: String) -> Bool { !raw.isEmpty }
}

struct Bench: @unchecked Sendable {
    let cache: PhotoCache
    let queue: DatabaseQueue
    let listingID: Int64
}

let query = ListQuery(text: "dogs", page: 1, perPage: 30)
let now = Date(timeIntervalSince1970: 1_700_000_000)
nonisolated(unsafe) var bench: Bench?
nonisolated(unsafe) var root: URL?

@_cdecl("LLVMFuzzerInitialize")
public func initialize(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    // Memory-backed when the system has it: every input is a write and a read of the index.
    let shm = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
    let base = FileManager.default.isWritableFile(atPath: shm.path) ? shm : FileManager.default.temporaryDirectory
    let folder = base.appendingPathComponent("photos-fuzz-cache-\(getpid())", isDirectory: true)
    root = folder
    atexit { if let root { try? FileManager.default.removeItem(at: root) } }

    let cache = PhotoCache(configuration: CacheConfiguration(location: .path(folder), now: { now }))
    let seeded = runBlocking { (try? await cache.listing(query, from: SeedProvider(), mode: .refresh)) != nil }
    guard seeded, let queue = try? DatabaseQueue(path: cache.indexPath),
        let id = try? queue.read({ try Int64.fetchOne($0, sql: "SELECT id FROM listing") })
    else {
        FileHandle.standardError.write(Data("cannot set up a cache in \(folder.path)\n".utf8))
        exit(2)
    }
    bench = Bench(cache: cache, queue: queue, listingID: id)
    return 0
}

/// A value for one column: NULL, an integer, a real, text, a blob, or a number at an edge.
func value(_ input: inout FuzzReader) -> DatabaseValue {
    switch input.byte() % 6 {
    case 0: return .null
    case 1: return input.int64().databaseValue
    case 2: return input.double().databaseValue
    case 3: return input.string().databaseValue
    case 4: return Data(input.data()).databaseValue
    default:
        let edges: [Double] = [-.infinity, .infinity, -1e300, 1e300, 9.3e18, -9.3e18, -1, 0, 4e9, 1_700_000_000]
        return edges[Int(input.byte()) % edges.count].databaseValue
    }
}

let photoColumns = [
    "provider", "raw", "title", "owner", "thumbnail_url", "image_url", "width", "height", "page_url", "taken_at", "uploaded_at",
    "tags", "updated_at",
]

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let bench else { return 0 }
    var input = FuzzReader(fuzzBytes(data, size))
    let listing = (0..<6).map { _ in value(&input) }
    let count = Int(input.byte() % 6)
    let photos = (0..<count).map { _ in photoColumns.map { _ in value(&input) } }

    // Rows the schema's NOT NULL constraints refuse are left out, as SQLite would refuse them.
    try? bench.queue.write { db in
        try? db.execute(
            sql: """
                UPDATE listing SET total = ?, has_more = ?, etag = ?, last_modified = ?, fetched_at = ?, stored_at = ?
                WHERE id = ?
                """,
            arguments: StatementArguments(listing + [bench.listingID.databaseValue]))
        try db.execute(sql: "DELETE FROM listing_photo")
        try db.execute(sql: "DELETE FROM photo")
        let placeholders = Array(repeating: "?", count: photoColumns.count + 1).joined(separator: ", ")
        for (position, columns) in photos.enumerated() {
            let id = "stub:\(position)"
            try? db.execute(
                sql: "INSERT INTO photo (id, \(photoColumns.joined(separator: ", "))) VALUES (\(placeholders))",
                arguments: StatementArguments([id.databaseValue] + columns))
            try? db.execute(
                sql: "INSERT INTO listing_photo (listing_id, position, photo_id) VALUES (?, ?, ?)",
                arguments: [bench.listingID, position, id])
        }
    }

    let cache = bench.cache
    let pages = runBlocking {
        var pages: [CachedPage] = []
        for mode in [ListingMode.offline, .normal] {
            if let page = try? await cache.listing(query, from: DownProvider(), mode: mode) { pages.append(page) }
        }
        return pages
    }
    for page in pages {
        // The CLI prints ages as whole seconds.
        guard page.age.isFinite, page.age >= 0, page.age < 9.0e18 else {
            violated("a cached page's age is a number of seconds", "\(page.age)")
        }
        guard page.page.photos.count <= count else {
            violated("a cached page holds only its own photos", "\(page.page.photos.count) of \(count)")
        }
    }
    for position in 0..<count {
        _ = cache.cachedPhoto(PhotoID(provider: "stub", raw: String(position)))
    }
    if let oldest = (try? cache.statistics())?.oldestEntry {
        let age = now.timeIntervalSince(oldest)
        guard age.isFinite, abs(age) < 9.0e18 else {
            violated("the oldest entry's age is a number of seconds", "\(oldest.timeIntervalSince1970)")
        }
    }
    return 0
}
