import Foundation
import GRDB
import PhotosCore

/// How much of each photo a listing read from the cache brings back: of a page of hundreds,
/// every column not read is hundreds of strings not made.
public enum CachedPhotoFields: Sendable, Equatable {
    /// Everything stored.
    case all
    /// All but the sizes (which only `save` and `browse` choose among).
    case withoutSizes
    /// Id, title, owner, width and height: what a table of photos shows.
    case tableColumns
}

/// How a listing may use the network.
public enum ListingMode: Sendable, Equatable {
    /// A fresh cached page is served; an old one is revalidated or fetched.
    case normal
    /// Always asks the network (unconditionally); a failure still falls back to the cache.
    case refresh
    /// Never asks the network; nothing cached is an error.
    case offline
}

/// A listing page and where it came from.
public struct CachedPage: Sendable {
    public enum Origin: Sendable, Equatable {
        /// Fetched from the network just now.
        case network
        /// Served from the cache without asking the network (fresh, or offline).
        case cache
        /// The network answered 304: the cached page is current.
        case revalidated
        /// The network failed and an older cached page was served; `reason` says why.
        case stale(reason: String)
    }

    public var page: PhotoPage
    public var origin: Origin
    /// Seconds since the network last confirmed this page (0 for a fresh answer).
    public var age: TimeInterval

    /// Whether the photos came from the cache rather than a body downloaded now.
    public var fromCache: Bool { origin != .network }
}

/// A cached listing as stored.
struct StoredListing: Sendable {
    var id: Int64
    var page: PhotoPage
    var validators: HTTPValidators
    var fetchedAt: Date
    /// When the listing was last recorded as read (seconds since 1970; 0 if the row's is not a time).
    var lastAccess: Double = 0
}

extension PhotoCache {
    /// One listing page under the cache policy: a page younger than the TTL is served without
    /// the network; an older one is revalidated with the provider's validators (a 304 costs no
    /// body) or fetched; `.refresh` always fetches; `.offline` never does. When the network
    /// fails and any cached copy exists, that copy is served as `.stale` with the reason.
    ///
    /// - Parameters:
    ///   - query: the page wanted.
    ///   - provider: who to ask.
    ///   - mode: how the network may be used.
    /// - Throws: `PhotosError.offlineNothingCached` offline without a cached copy; otherwise
    ///   the provider's error when there is no cached copy to fall back on (or the error is one
    ///   the user must fix: authentication, usage), and `CancellationError`.
    ///
    /// `beforeStoring` sees a page that came from the network as soon as it is decoded, before it
    /// is written to the index: `photos list` starts the page's thumbnails there.
    /// `beforeFetching` runs just before a page the cache does not hold at all is asked for:
    /// `photos list` opens there the connections its thumbnails will need. Photos read
    /// from the index bring back `fields` (a table needs five); a page from the network is
    /// whole.
    public func listing(
        _ query: ListQuery, from provider: any PhotoProvider, mode: ListingMode, fields: CachedPhotoFields = .all,
        beforeStoring: (@Sendable (PhotoPage) -> Void)? = nil, beforeFetching: (@Sendable () -> Void)? = nil
    ) async throws -> CachedPage {
        let key = ListingKey(provider: provider.name, scope: provider.cacheScope, query: query)
        let stored: StoredListing?
        do {
            stored = try storedListing(key, fields: fields)
        } catch {
            reportFailure("read a listing", error)
            stored = nil
        }
        let time = now
        if let stored {
            let age = max(0, time.timeIntervalSince(stored.fetchedAt))
            if mode == .offline || (mode == .normal && age < configuration.listingTTL) {
                noteListingHit(stored)
                return CachedPage(page: stored.page, origin: .cache, age: age)
            }
        } else if mode == .offline {
            throw PhotosError.offlineNothingCached(key.description + noCacheNote)
        }

        if stored == nil { beforeFetching?() }
        let validators = mode == .normal ? stored?.validators : nil
        let answer: ListRevalidation
        do {
            answer = try await provider.list(query, revalidating: validators.flatMap { $0.isEmpty ? nil : $0 })
            // A page of records none of which could be read is a broken answer, not an empty
            // one: it never replaces a cached copy, and without one it is said as bad data.
            if case .modified(let page, _) = answer, page.photos.isEmpty, page.skippedRecords > 0 {
                throw PhotosError.badData(
                    provider: provider.name,
                    detail: page.skippedRecords == 1 ? "its only record could not be read" : "none of its \(page.skippedRecords) records could be read")
            }
        } catch {
            if error is CancellationError || Task.isCancelled { throw error }
            guard let stored, Self.allowsStaleFallback(error) else { throw error }
            noteListingHit(stored)
            let age = max(0, now.timeIntervalSince(stored.fetchedAt))
            return CachedPage(page: stored.page, origin: .stale(reason: Self.describe(error)), age: age)
        }
        switch answer {
        case .notModified(let fresh):
            guard let stored else {
                throw PhotosError.badData(provider: provider.name, detail: "answered 304 Not Modified to a request photos did not make conditional")
            }
            do {
                try markRevalidated(stored.id, validators: fresh.isEmpty ? stored.validators : fresh)
            } catch {
                reportFailure("record a revalidated listing", error)
            }
            var revalidated = stored
            revalidated.lastAccess = now.timeIntervalSince1970  // recorded with the revalidation
            noteListingHit(revalidated)
            return CachedPage(page: stored.page, origin: .revalidated, age: 0)
        case .modified(let page, let fresh):
            beforeStoring?(page)
            do {
                try store(page, key: key, validators: fresh)
            } catch {
                reportFailure("store a listing", error)
            }
            run.withLock {
                $0.listingMisses += 1
                $0.wrote = true
            }
            return CachedPage(page: page, origin: .network, age: 0)
        }
    }

    /// Failures a stale copy may stand in for: the network, the provider being down, or the
    /// provider sending something unreadable. Not credentials or usage: the user must fix those.
    /// - Parameter error: what the provider threw.
    /// - Returns: whether a cached copy may be served instead, with a warning.
    public static func allowsStaleFallback(_ error: any Error) -> Bool {
        switch error {
        case is TransportError: return true
        case let error as PhotosError:
            switch error {
            case .unavailable, .badData: return true
            default: return false
            }
        default: return false
        }
    }

    /// Why the index cannot be used, when `error` says it cannot, without "continuing without
    /// the cache": the error of a command about the cache itself.
    public static func unusableReason(_ error: any Error) -> String? { (error as? CacheUnavailable)?.problem }

    /// Whether `error` is the index or a file meeting a full disk.
    /// Whether `error` is a write refused because the cache is on a read-only file system.
    public static func isReadOnly(_ error: any Error) -> Bool {
        if let error = error as? DatabaseError { return error.resultCode.primaryResultCode == .SQLITE_READONLY }
        if let error = error as? POSIXError { return error.code == .EROFS }
        if let error = error as? CacheLockUnavailable { return error.code == EROFS }
        return false
    }

    public static func isDiskFull(_ error: any Error) -> Bool {
        if let error = error as? DatabaseError { return error.resultCode == .SQLITE_FULL }
        if let error = error as? POSIXError { return error.code == .ENOSPC || error.code == .EDQUOT }
        return false
    }

    /// One line for a warning: the error's own description (messages never carry full URLs).
    public static func describe(_ error: any Error) -> String {
        switch error {
        case let error as PhotosError: return error.description
        case let error as TransportError: return error.description
        case let error as CacheLockUnavailable: return error.description
        default:
            // Foundation's file errors: the system's reason ("Permission denied"), not the
            // NSError dump.
            if let cocoa = error as? CocoaError {
                if let posix = cocoa.underlying as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
                if cocoa.code == .fileWriteOutOfSpace { return String(cString: strerror(ENOSPC)) }
            }
            if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
            // photos' own errors and its libraries' (an image that cannot be decoded) say
            // themselves; only Foundation's go through NSError, whose generic text for them is
            // "The operation could not be completed. (PhotosImaging.ImageDecodingError error 4.)".
            if !(error is CocoaError), !(type(of: error) is NSError.Type) {
                if let localized = error as? LocalizedError, let text = localized.errorDescription { return text }
                if let described = error as? CustomStringConvertible { return described.description }
                return String(describing: error)
            }
            let error = error as NSError
            if error.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(error.code))) }
            if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
                return String(cString: strerror(Int32(underlying.code)))
            }
            return error.localizedDescription
        }
    }

    /// Counts a listing served from the cache, and notes its access with the one recorded (the
    /// end of the command writes it if that is older than ``accessGranularity``).
    private func noteListingHit(_ stored: StoredListing) {
        run.withLock {
            $0.listingHits += 1
            $0.noteListing(stored.id, recorded: stored.lastAccess)
        }
    }

    // MARK: Storage

    /// The cached page for `key`, if any (two indexed lookups; no file system access).
    func storedListing(_ key: ListingKey, fields: CachedPhotoFields = .all) throws -> StoredListing? {
        try index.read { db in
            guard let row = try Row.fetchOne(
                db, sql: "SELECT id, total, has_more, etag, last_modified, fetched_at, last_access FROM listing WHERE key = ?",
                arguments: [key.key])
            else { return nil }
            guard let id: Int64 = row.value("id"), var fetchedAt: Double = row.value("fetched_at") else { return nil }
            // A time that is not a time, one before 1970 or one in the future, makes the page as old
            // as can be: it is revalidated, and its age stays a number of seconds photos can print.
            if !fetchedAt.isFinite || fetchedAt < 0 || fetchedAt > now.timeIntervalSince1970 + 86_400 { fetchedAt = 0 }
            // Read by SQLite's own calls, by column position: no `Row` or `DatabaseValue` per
            // value, and no look-up of column names (GRDB compares them case-insensitively).
            var photos: [Photo] = []
            // Room for the page at once: grown by doubling, a page of 500 was copied eight times,
            // into memory the run touched only for that (photo values are large).
            photos.reserveCapacity(min(max(key.perPage, 1), 1_000))
            let rows = BoundStatement(
                try db.makeStatement(sql: """
                    SELECT \(Self.photoColumns("p.", fields: fields)) FROM listing_photo lp JOIN photo p ON p.id = lp.photo_id
                    WHERE lp.listing_id = ? ORDER BY lp.position
                    """),
                in: db)
            rows.bind(1, id)
            try rows.forEachRow { columns in
                if let photo = Self.photo(from: columns, fields: fields) { photos.append(photo) }
            }
            let page = PhotoPage(page: key.page, perPage: key.perPage, total: row.value("total"), hasMore: row.value("has_more") ?? false, photos: photos)
            return StoredListing(
                id: id, page: page, validators: HTTPValidators(etag: row.value("etag"), lastModified: row.value("last_modified")),
                fetchedAt: Date(timeIntervalSince1970: fetchedAt), lastAccess: (row.value("last_access") as Double?).flatMap { $0.isFinite ? $0 : nil } ?? 0)
        }
    }

    /// Stores (or replaces) one page and its photos in one transaction.
    func store(_ page: PhotoPage, key: ListingKey, validators: HTTPValidators) throws {
        let time = now.timeIntervalSince1970
        try index.write { db in
            try db.execute(
                sql: """
                    INSERT INTO listing (key, search_key, provider, query_text, filters, page, per_page, total, has_more,
                        photo_count, etag, last_modified, stored_at, fetched_at, last_access)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(key) DO UPDATE SET total = excluded.total, has_more = excluded.has_more,
                        photo_count = excluded.photo_count, etag = excluded.etag, last_modified = excluded.last_modified,
                        stored_at = excluded.stored_at, fetched_at = excluded.fetched_at, last_access = excluded.last_access
                    """,
                arguments: [
                    key.key, key.searchKey, key.provider, key.text, key.canonicalFilters, key.page, key.perPage, page.total,
                    page.hasMore, page.photos.count, validators.etag, validators.lastModified, time, time, time,
                ])
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM listing WHERE key = ?", arguments: [key.key]) else { return }
            try db.execute(sql: "DELETE FROM listing_photo WHERE listing_id = ?", arguments: [id])
            let insertPhoto = try db.cachedStatement(sql: Self.upsertPhoto)
            let insertLink = try db.cachedStatement(sql: "INSERT OR REPLACE INTO listing_photo (listing_id, position, photo_id) VALUES (?, ?, ?)")
            // Values bound straight to the prepared statements: GRDB's argument arrays of
            // existentials cost more than SQLite's own work for each of hundreds of rows.
            let photoRow = BoundStatement(insertPhoto, in: db)
            let linkRow = BoundStatement(insertLink, in: db)
            // A photo a provider sent twice in the page is kept as it first came, as the listing
            // shows it (its later copy would overwrite the row); both places stay linked.
            var stored = Set<String>(minimumCapacity: page.photos.count)
            for (position, photo) in page.photos.enumerated() {
                let key = photo.id.description
                if stored.insert(key).inserted {
                    Self.bind(photo, to: photoRow, at: time)
                    try photoRow.run()
                }
                linkRow.bind(1, id)
                linkRow.bind(2, position)
                linkRow.bind(3, key)
                try linkRow.run()
            }
        }
    }

    private func markRevalidated(_ id: Int64, validators: HTTPValidators) throws {
        let time = now.timeIntervalSince1970
        try index.write { db in
            try db.execute(
                sql: "UPDATE listing SET fetched_at = ?, last_access = ?, etag = ?, last_modified = ? WHERE id = ?",
                arguments: [time, time, validators.etag, validators.lastModified, id])
        }
    }

    /// The columns `photo(from:fields:)` reads for `fields`, in the order it reads them: a
    /// table's first, then the rest, then the sizes.
    static func photoColumns(_ prefix: String = "", fields: CachedPhotoFields = .all) -> String {
        var names = ["provider", "raw", "title", "owner", "width", "height"]
        if fields != .tableColumns { names += ["thumbnail_url", "image_url", "page_url", "taken_at", "uploaded_at", "tags"] }
        if fields == .all { names.append("sizes") }
        return names.map { prefix + $0 }.joined(separator: ", ")
    }

    /// A photo from a row of `photoColumns(fields:)`; nil for a row that no longer makes sense
    /// (never trust the disk).
    static func photo(from row: StatementColumns, fields: CachedPhotoFields = .all) -> Photo? {
        // A value of another type reads as nil (a width of 1e300 is no width): the disk is not
        // trusted.
        guard let provider = row.text(0), let raw = row.text(1), !provider.isEmpty, !raw.isEmpty else {
            return nil
        }
        var photo = Photo(
            id: PhotoID(provider: provider, raw: raw), title: row.text(2) ?? "", owner: row.text(3), width: row.int(4),
            height: row.int(5))
        guard fields != .tableColumns else { return photo }
        photo.thumbnailURL = row.text(6)
        photo.imageURL = row.text(7)
        photo.pageURL = row.text(8)
        photo.takenAt = row.double(9).map(Date.init(timeIntervalSince1970:))
        photo.uploadedAt = row.double(10).map(Date.init(timeIntervalSince1970:))
        photo.tags = row.text(11).map(Self.decodeTags) ?? []
        if fields == .all { photo.sizes = row.text(12).map(Self.decodeSizes) ?? [] }
        return photo
    }

    /// The `sizes` column: one size per record, `WIDTH US HEIGHT US LABEL US URL`, records
    /// separated by RS (a format read for every photo of every cached page, far cheaper than
    /// JSON). Sizes whose label or URL hold a separator are left out; nil for no sizes.
    static func encodeSizes(_ sizes: [PhotoSize]) -> String? {
        // Built as bytes: string interpolation per field cost more than the rest of a store.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(sizes.reduce(0) { $0 + $1.label.utf8.count + $1.url.utf8.count + 24 })
        var any = false
        for size in sizes {
            var label = size.label
            var url = size.url
            let clean = label.withUTF8 { !Self.holdsSeparator($0) } && url.withUTF8 { !Self.holdsSeparator($0) }
            guard clean else { continue }
            if any { bytes.append(0x1E) }
            any = true
            if let width = size.width { appendDecimal(width, to: &bytes) }
            bytes.append(0x1F)
            if let height = size.height { appendDecimal(height, to: &bytes) }
            bytes.append(0x1F)
            label.withUTF8 { bytes.append(contentsOf: $0) }
            bytes.append(0x1F)
            url.withUTF8 { bytes.append(contentsOf: $0) }
        }
        return any ? String(decoding: bytes, as: UTF8.self) : nil
    }

    /// Whether `bytes` hold a record or unit separator (RS, US), by `memchr`: a listing's
    /// thousands of URLs are scanned for them.
    private static func holdsSeparator(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        return memchr(base, 0x1E, bytes.count) != nil || memchr(base, 0x1F, bytes.count) != nil
    }

    private static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        if value < 0 || value >= 1_000_000_000 {
            bytes.append(contentsOf: String(value).utf8)
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(rest % 10) + 0x30
                rest /= 10
                count += 1
            } while rest > 0
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[index]) }
        }
    }

    static func decodeSizes(_ text: String) -> [PhotoSize] {
        // One pass over the bytes, cutting on the separator bytes (never part of another
        // character's UTF-8): this runs for every size of every cached photo.
        var text = text
        return text.withUTF8 { bytes -> [PhotoSize] in
            var sizes: [PhotoSize] = []
            var start = 0
            while start < bytes.count {
                var end = start
                while end < bytes.count, bytes[end] != 0x1E { end += 1 }
                if let size = decodeSize(UnsafeBufferPointer(rebasing: bytes[start..<end])) { sizes.append(size) }
                start = end + 1
            }
            return sizes
        }
    }

    /// One `WIDTH US HEIGHT US LABEL US URL` record; nil when it has fewer fields or no URL.
    private static func decodeSize(_ record: UnsafeBufferPointer<UInt8>) -> PhotoSize? {
        var cuts: [Int] = []
        cuts.reserveCapacity(3)
        for index in record.indices where record[index] == 0x1F {
            cuts.append(index)
            if cuts.count == 3 { break }
        }
        guard cuts.count == 3, cuts[2] + 1 < record.count else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            // Digits only, at most 18 of them: anything else is no number (as Int(String) says).
            guard !range.isEmpty, range.count <= 18 else { return range.isEmpty ? nil : Int(text(range)) }
            var value = 0
            for index in range {
                let digit = record[index] &- 0x30
                guard digit < 10 else { return Int(text(range)) }
                value = value * 10 + Int(digit)
            }
            return value
        }
        func text(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: record[range]), as: UTF8.self)
        }
        return PhotoSize(
            label: text(cuts[1] + 1..<cuts[2]), width: number(0..<cuts[0]), height: number(cuts[0] + 1..<cuts[1]),
            url: text(cuts[2] + 1..<record.count))
    }

    /// The `tags` column: a JSON array of strings.
    static func encodeTags(_ tags: [String]) -> String {
        // Built as bytes: quoting into a string made a string per tag.
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        bytes.reserveCapacity(tags.reduce(2) { $0 + $1.utf8.count + 3 })
        for (index, tag) in tags.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONText.appendQuoted(tag, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The tags of a `tags` column; none when it is not an array of strings (never trust the disk).
    static func decodeTags(_ text: String) -> [String] {
        plainTags(text) ?? decodeTagsAsJSON(text)
    }

    /// The tags of a column as `encodeTags` writes most: `["a","b"]`, with no escape, space or
    /// control character. Nil for anything else, which the JSON reader then judges. Read by
    /// bytes: a listing of 500 read its tags in a fifth of the instructions the JSON reader took.
    static func plainTags(_ text: String) -> [String]? {
        var text = text
        return text.withUTF8 { bytes -> [String]? in
            let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), close = UInt8(ascii: "]")
            guard bytes.count >= 2, bytes[0] == UInt8(ascii: "["), bytes[bytes.count - 1] == close else { return nil }
            if bytes.count == 2 { return [] }
            var tags: [String] = []
            var index = 1
            while index < bytes.count, bytes[index] == quote {
                let start = index + 1
                var end = start
                while end < bytes.count, bytes[end] != quote {
                    if bytes[end] == UInt8(ascii: "\\") || bytes[end] < 0x20 { return nil }
                    end += 1
                }
                guard end + 1 < bytes.count else { return nil }
                tags.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
                index = end + 2
                switch bytes[end + 1] {
                case comma: continue
                case close where end + 2 == bytes.count: return tags
                default: return nil
                }
            }
            return nil
        }
    }

    /// The tags of a `tags` column read as JSON.
    static func decodeTagsAsJSON(_ text: String) -> [String] {
        guard let document = try? JSONDocument(parsing: Data(text.utf8)), document.root.kind == .array else { return [] }
        var tags: [String] = []
        for element in document.root.elements {
            guard let tag = element.string else { return [] }
            tags.append(tag)
        }
        return tags
    }

    /// A photo known from a cached listing (for `show --offline`).
    /// - Throws: nothing useful to the caller: a broken index reads as "not cached".
    /// Inserts or updates one photo (all its columns) in a store.
    static let upsertPhoto = """
        INSERT INTO photo (id, provider, raw, title, owner, thumbnail_url, image_url, width, height, page_url,
            taken_at, uploaded_at, tags, sizes, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(id) DO UPDATE SET title = excluded.title, owner = excluded.owner,
            thumbnail_url = excluded.thumbnail_url, image_url = excluded.image_url, width = excluded.width,
            height = excluded.height, page_url = excluded.page_url, taken_at = excluded.taken_at,
            uploaded_at = excluded.uploaded_at, tags = excluded.tags, sizes = excluded.sizes,
            updated_at = excluded.updated_at
        """

    /// Binds `photo`'s columns to ``upsertPhoto``.
    static func bind(_ photo: Photo, to row: BoundStatement, at time: Double) {
        row.bind(1, photo.id.description)
        row.bind(2, photo.id.provider)
        row.bind(3, photo.id.raw)
        row.bind(4, photo.title)
        row.bind(5, photo.owner)
        row.bind(6, photo.thumbnailURL)
        row.bind(7, photo.imageURL)
        row.bind(8, photo.width)
        row.bind(9, photo.height)
        row.bind(10, photo.pageURL)
        row.bind(11, photo.takenAt?.timeIntervalSince1970)
        row.bind(12, photo.uploadedAt?.timeIntervalSince1970)
        row.bind(13, photo.tags.isEmpty ? nil : Self.encodeTags(photo.tags))
        row.bind(14, Self.encodeSizes(photo.sizes))
        row.bind(15, time)
    }

    /// Keeps what a provider's detail said of a photo, its sizes above all: a later `save` of
    /// it asks the provider nothing, and `show --offline` can name (and open) its largest image.
    /// A failure is reported once and not thrown: the detail was had, only not kept.
    public func remember(_ detail: PhotoDetail) {
        var photo = detail.photo
        if !detail.sizes.isEmpty { photo.sizes = detail.sizes }
        if photo.tags.isEmpty { photo.tags = detail.tags }
        guard !photo.sizes.isEmpty else { return }
        let time = now.timeIntervalSince1970
        do {
            try index.write { db in
                let row = BoundStatement(try db.cachedStatement(sql: Self.upsertPhoto), in: db)
                Self.bind(photo, to: row, at: time)
                try row.run()
            }
        } catch {
            reportFailure("keep a photo's detail", error)
        }
    }

    public func cachedPhoto(_ id: PhotoID) -> Photo? {
        try? index.read { db in
            let lookup = BoundStatement(try db.makeStatement(sql: "SELECT \(Self.photoColumns()) FROM photo WHERE id = ?"), in: db)
            lookup.bind(1, id.description)
            return try lookup.firstRow { Self.photo(from: $0) }
        }
    }
}

extension Row {
    /// The column's value, or nil for NULL, a missing column or a value of another type: what the
    /// disk holds is never trusted enough to crash on.
    ///
    /// Converted from the column's `DatabaseValue`, which any stored value is, rather than with
    /// GRDB's throwing `decode`: a NULL or a mismatch there builds an error describing the row and
    /// its statement, some 130,000 instructions, for every NULL column of every photo read.
    func value<Value: DatabaseValueConvertible>(_ column: String) -> Value? {
        let stored: DatabaseValue? = self[column]
        return stored.flatMap { Value.fromDatabaseValue($0) }
    }

    /// The value at a column position, with the same care as ``value(_:)``.
    func value<Value: DatabaseValueConvertible>(at index: Int) -> Value? {
        guard index >= 0, index < count else { return nil }
        let stored: DatabaseValue = self[index]
        return Value.fromDatabaseValue(stored)
    }
}
