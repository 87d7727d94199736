import Foundation
import GRDB
import PhotosCore

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
    public func listing(_ query: ListQuery, from provider: any PhotoProvider, mode: ListingMode) async throws -> CachedPage {
        let key = ListingKey(provider: provider.name, query: query)
        let stored: StoredListing?
        do {
            stored = try storedListing(key)
        } catch {
            reportFailure("read a listing", error)
            stored = nil
        }
        let time = now
        if let stored {
            let age = max(0, time.timeIntervalSince(stored.fetchedAt))
            if mode == .offline || (mode == .normal && age < configuration.listingTTL) {
                noteListingHit(stored.id)
                return CachedPage(page: stored.page, origin: .cache, age: age)
            }
        } else if mode == .offline {
            throw PhotosError.offlineNothingCached(key.description)
        }

        let validators = mode == .normal ? stored?.validators : nil
        let answer: ListRevalidation
        do {
            answer = try await provider.list(query, revalidating: validators.flatMap { $0.isEmpty ? nil : $0 })
        } catch {
            if error is CancellationError || Task.isCancelled { throw error }
            guard let stored, Self.allowsStaleFallback(error) else { throw error }
            noteListingHit(stored.id)
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
            noteListingHit(stored.id)
            return CachedPage(page: stored.page, origin: .revalidated, age: 0)
        case .modified(let page, let fresh):
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

    /// Whether `error` says the index cannot be used this run (already reported as a warning).
    public static func isUnavailable(_ error: any Error) -> Bool { error is CacheUnavailable }

    /// One line for a warning: the error's own description (messages never carry full URLs).
    public static func describe(_ error: any Error) -> String {
        switch error {
        case let error as PhotosError: return error.description
        case let error as TransportError: return error.description
        default:
            // Foundation's file errors: the system's reason ("Permission denied"), not the
            // NSError dump.
            if let cocoa = error as? CocoaError, let posix = cocoa.underlying as? POSIXError {
                return String(cString: strerror(posix.code.rawValue))
            }
            let error = error as NSError
            if error.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(error.code))) }
            if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
                return String(cString: strerror(Int32(underlying.code)))
            }
            return error.localizedDescription
        }
    }

    private func noteListingHit(_ id: Int64) {
        run.withLock {
            $0.listingHits += 1
            $0.listingAccesses.insert(id)
        }
    }

    // MARK: Storage

    /// The cached page for `key`, if any (two indexed lookups; no file system access).
    func storedListing(_ key: ListingKey) throws -> StoredListing? {
        try index.read { db in
            guard let row = try Row.fetchOne(
                db, sql: "SELECT id, total, has_more, etag, last_modified, fetched_at FROM listing WHERE key = ?",
                arguments: [key.key])
            else { return nil }
            guard let id: Int64 = row.value("id"), var fetchedAt: Double = row.value("fetched_at") else { return nil }
            // A time that is not a time, or one in the future, makes the page as old as can be:
            // it is revalidated, and its age stays a number.
            if !fetchedAt.isFinite || fetchedAt > now.timeIntervalSince1970 + 86_400 { fetchedAt = 0 }
            let photos = try Row.fetchAll(
                db,
                sql: """
                    SELECT p.* FROM listing_photo lp JOIN photo p ON p.id = lp.photo_id
                    WHERE lp.listing_id = ? ORDER BY lp.position
                    """,
                arguments: [id]
            ).compactMap(Self.photo(from:))
            let page = PhotoPage(page: key.page, perPage: key.perPage, total: row.value("total"), hasMore: row.value("has_more") ?? false, photos: photos)
            return StoredListing(
                id: id, page: page, validators: HTTPValidators(etag: row.value("etag"), lastModified: row.value("last_modified")),
                fetchedAt: Date(timeIntervalSince1970: fetchedAt))
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
            let insertPhoto = try db.cachedStatement(
                sql: """
                    INSERT INTO photo (id, provider, raw, title, owner, thumbnail_url, image_url, width, height, page_url,
                        taken_at, uploaded_at, tags, sizes, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET title = excluded.title, owner = excluded.owner,
                        thumbnail_url = excluded.thumbnail_url, image_url = excluded.image_url, width = excluded.width,
                        height = excluded.height, page_url = excluded.page_url, taken_at = excluded.taken_at,
                        uploaded_at = excluded.uploaded_at, tags = excluded.tags, sizes = excluded.sizes,
                        updated_at = excluded.updated_at
                    """)
            let insertLink = try db.cachedStatement(sql: "INSERT OR REPLACE INTO listing_photo (listing_id, position, photo_id) VALUES (?, ?, ?)")
            for (position, photo) in page.photos.enumerated() {
                let sizes = Self.encodeSizes(photo.sizes)
                let tags = photo.tags.isEmpty ? nil : (try? JSONEncoder().encode(photo.tags)).map { String(decoding: $0, as: UTF8.self) }
                try insertPhoto.execute(arguments: [
                    photo.id.description, photo.id.provider, photo.id.raw, photo.title, photo.owner, photo.thumbnailURL, photo.imageURL,
                    photo.width, photo.height, photo.pageURL, photo.takenAt?.timeIntervalSince1970,
                    photo.uploadedAt?.timeIntervalSince1970, tags, sizes, time,
                ])
                try insertLink.execute(arguments: [id, position, photo.id.description])
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

    /// A photo from its row; nil for a row that no longer makes sense (never trust the disk).
    static func photo(from row: Row) -> Photo? {
        guard let provider: String = row.value("provider"), let raw: String = row.value("raw"), !provider.isEmpty, !raw.isEmpty else {
            return nil
        }
        var tags: [String] = []
        if let text: String = row.value("tags"), let decoded = try? JSONDecoder().decode([String].self, from: Data(text.utf8)) {
            tags = decoded
        }
        let sizes = (row.value("sizes") as String?).map(Self.decodeSizes) ?? []
        let taken: Double? = row.value("taken_at")
        let uploaded: Double? = row.value("uploaded_at")
        return Photo(
            id: PhotoID(provider: provider, raw: raw), title: row.value("title") ?? "", owner: row.value("owner"),
            thumbnailURL: row.value("thumbnail_url"), imageURL: row.value("image_url"), width: row.value("width"),
            height: row.value("height"), pageURL: row.value("page_url"), takenAt: taken.map(Date.init(timeIntervalSince1970:)),
            uploadedAt: uploaded.map(Date.init(timeIntervalSince1970:)), tags: tags, sizes: sizes)
    }

    /// The `sizes` column: one size per record, `WIDTH US HEIGHT US LABEL US URL`, records
    /// separated by RS (a format read for every photo of every cached page, far cheaper than
    /// JSON). Sizes whose label or URL hold a separator are left out; nil for no sizes.
    static func encodeSizes(_ sizes: [PhotoSize]) -> String? {
        let records = sizes.compactMap { size -> String? in
            guard !size.label.contains(where: Self.isSeparator), !size.url.contains(where: Self.isSeparator) else { return nil }
            return "\(size.width.map(String.init) ?? "")\u{1F}\(size.height.map(String.init) ?? "")\u{1F}\(size.label)\u{1F}\(size.url)"
        }
        return records.isEmpty ? nil : records.joined(separator: "\u{1E}")
    }

    static func decodeSizes(_ text: String) -> [PhotoSize] {
        // Split as bytes: the separators are control characters, which always stand alone as
        // Characters, so this is the Character split without its cost (a cached listing of 500
        // reads some 4,000 sizes).
        var sizes: [PhotoSize] = []
        let bytes = text.utf8
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: 0x1E) ?? bytes.endIndex
            var fields: [Substring] = []
            var fieldStart = start
            while fields.count < 3, let separator = bytes[fieldStart..<end].firstIndex(of: 0x1F) {
                fields.append(text[fieldStart..<separator])
                fieldStart = bytes.index(after: separator)
            }
            let url = text[fieldStart..<end]
            if fields.count == 3, !url.isEmpty {
                sizes.append(PhotoSize(label: String(fields[2]), width: Int(fields[0]), height: Int(fields[1]), url: String(url)))
            }
            start = end == bytes.endIndex ? end : bytes.index(after: end)
        }
        return sizes
    }

    private static func isSeparator(_ character: Character) -> Bool { character == "\u{1E}" || character == "\u{1F}" }

    /// A photo known from a cached listing (for `show --offline`).
    /// - Throws: nothing useful to the caller: a broken index reads as "not cached".
    public func cachedPhoto(_ id: PhotoID) -> Photo? {
        try? index.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM photo WHERE id = ?", arguments: [id.description]).flatMap(Self.photo(from:))
        }
    }
}

extension Row {
    /// The column's value, or nil for NULL, a missing column or a value of another type: what the
    /// disk holds is never trusted enough to crash on.
    func value<Value: DatabaseValueConvertible>(_ column: String) -> Value? {
        try? decode(Value.self, forColumn: column)
    }
}
