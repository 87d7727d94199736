import Foundation
import PhotosCore
import Testing

@testable import PhotosCache

/// What a store writes is what a read gives back, field by field.
@Suite struct StoredPhotoTests {
    @Test func everyFieldOfEveryPhotoReadsBackAsStored() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let photos = [
            Photo(
                id: PhotoID(provider: "fake", raw: "1"), title: "Zoë ☃︎ \u{1F1EB}\u{1F1F7}", owner: "o", thumbnailURL: "https://h/t.jpg",
                imageURL: "https://h/i.jpg", width: 1024, height: 768, pageURL: "https://h/p",
                takenAt: Date(timeIntervalSince1970: 1_234_567_890), uploadedAt: Date(timeIntervalSince1970: -5.5),
                tags: ["a", "b c"], sizes: [PhotoSize(label: "Large", width: 1024, height: 768, url: "https://h/l.jpg")]),
            Photo(
                id: PhotoID(provider: "fake", raw: "2"), title: "", owner: nil, thumbnailURL: nil, imageURL: nil, width: nil,
                height: nil, pageURL: nil, takenAt: nil, uploadedAt: nil, tags: [], sizes: []),
            Photo(
                id: PhotoID(provider: "fake", raw: "3"), title: "", owner: "", thumbnailURL: "", imageURL: "", width: 0, height: -1,
                pageURL: "", takenAt: nil, uploadedAt: nil, tags: [""], sizes: []),
        ]
        let cache = bed.cache()
        defer { cache.close() }
        let provider = FakeProvider { _, _ in .page(photos) }
        let query = ListQuery(page: 1, perPage: 3)
        _ = try await cache.listing(query, from: provider, mode: .normal)
        let stored = try #require(try cache.storedListing(ListingKey(provider: "fake", query: query)))
        #expect(stored.page.photos == photos)
        for photo in photos { #expect(cache.cachedPhoto(photo.id) == photo) }
        // A listing, which shows no sizes, reads everything else the same.
        let listed = try await cache.listing(query, from: provider, mode: .offline, fields: .withoutSizes)
        #expect(listed.page.photos == photos.map { photo in
            var photo = photo
            photo.sizes = []
            return photo
        })
        // A table reads its columns: id, title, owner, width and height, as stored.
        let tabled = try await cache.listing(query, from: provider, mode: .offline, fields: .tableColumns)
        #expect(tabled.page.photos == photos.map { photo in
            Photo(id: photo.id, title: photo.title, owner: photo.owner, width: photo.width, height: photo.height)
        })
        #expect(try await cache.listing(query, from: provider, mode: .offline).page.photos == photos)
    }

    /// `fake:1` to `fake:count`, each with its own title, tags and `sizesEach` sizes.
    static func numberedPhotos(_ count: Int, sizesEach: Int) -> [Photo] {
        (1...count).map { number in
            Photo(
                id: PhotoID(provider: "fake", raw: String(number)), title: "photo \(number) ×", owner: "o", thumbnailURL: "https://h/\(number)_t.jpg",
                imageURL: nil, width: number, height: 768, pageURL: nil, takenAt: nil, uploadedAt: nil, tags: ["t", "\(number)"],
                sizes: (1...sizesEach).map { PhotoSize(label: "size \($0)", width: 100 * $0, height: 75 * $0, url: "https://static.example/\(number)_\($0).jpg") })
        }
    }

    /// An offline run reads the index through a mapping of its file; what it reads is the same,
    /// and a run that writes does not map it.
    @Test func aMappedIndexReadsWhatWasStored() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let photos = Self.numberedPhotos(300, sizesEach: 1)
        let query = ListQuery(page: 1, perPage: 300)
        let writer = bed.cache()
        _ = try await writer.listing(query, from: FakeProvider { _, _ in .page(photos) }, mode: .normal)
        #expect(try writer.index.read { try Int.fetchOne($0, sql: "PRAGMA mmap_size") } == 0)
        writer.close()

        var configuration = bed.cache().configuration
        configuration.mapsIndex = true
        let reader = PhotoCache(configuration: configuration)
        defer { reader.close() }
        #expect(try reader.index.read { try Int.fetchOne($0, sql: "PRAGMA mmap_size") } ?? 0 > 0)
        let listed = try await reader.listing(query, from: FakeProvider { _, _ in .page([]) }, mode: .offline)
        #expect(listed.page.photos == photos)
    }

    /// A new index is made without flushing (nothing in it to lose), then written like any other:
    /// WAL, flushed at checkpoints (synchronous NORMAL), in the run that made it and later ones.
    @Test func aNewIndexIsWrittenWithTheUsualSafetyOnceMade() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let photos = Self.numberedPhotos(20, sizesEach: 1)
        let query = ListQuery(page: 1, perPage: 20)
        for run in ["new", "existing"] {
            let cache = bed.cache()
            _ = try await cache.listing(query, from: FakeProvider { _, _ in .page(photos) }, mode: .refresh)
            #expect(try cache.index.read { try Int.fetchOne($0, sql: "PRAGMA synchronous") } == 1, "NORMAL, \(run) index")
            #expect(try cache.index.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal", "\(run) index")
            cache.close()
        }
        let reader = bed.cache()
        defer { reader.close() }
        #expect(try reader.index.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
        #expect(try await reader.listing(query, from: FakeProvider { _, _ in .page([]) }, mode: .offline).page.photos == photos)
    }

    @Test func anIndexOfTheVersionBeforeKeepsItsPhotosInTheRowidTable() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let photos = Self.numberedPhotos(40, sizesEach: 10)
        let query = ListQuery(page: 1, perPage: 40)
        var cache = bed.cache()
        _ = try await cache.listing(query, from: FakeProvider { _, _ in .page(photos) }, mode: .normal)
        // The same rows in version 2's WITHOUT ROWID table.
        try cache.index.write { db in
            let columns = "id, provider, raw, title, owner, thumbnail_url, image_url, width, height, page_url, taken_at, uploaded_at, tags, updated_at, sizes"
            try db.execute(sql: """
                CREATE TABLE photo_v2 (
                    id TEXT PRIMARY KEY, provider TEXT NOT NULL, raw TEXT NOT NULL, title TEXT NOT NULL, owner TEXT,
                    thumbnail_url TEXT, image_url TEXT, width INTEGER, height INTEGER, page_url TEXT, taken_at DOUBLE,
                    uploaded_at DOUBLE, tags TEXT, updated_at DOUBLE NOT NULL, sizes TEXT) WITHOUT ROWID;
                INSERT INTO photo_v2 (\(columns)) SELECT \(columns) FROM photo;
                DROP TABLE photo;
                ALTER TABLE photo_v2 RENAME TO photo;
                CREATE INDEX photo_by_provider ON photo(provider);
                PRAGMA user_version = 2;
                """)
        }
        cache.close()

        cache = bed.cache()
        defer { cache.close() }
        let stored = try #require(try cache.storedListing(ListingKey(provider: "fake", query: query)))
        #expect(stored.page.photos == photos, "every photo and its sizes, after the upgrade")
        let schema = try cache.index.read { db in try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'photo'") }
        #expect(schema?.contains("WITHOUT ROWID") == false)
        #expect(try cache.index.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") } == CacheSchema.migrations.count)
        #expect(try cache.integrityCheck() == "ok")
    }

    /// Found by the cache fuzzer (Fixtures/fuzz/cache/crash-cf519a30...): a width the disk holds
    /// as a huge real number trapped in GRDB's row subscript.
    @Test func aColumnOfAnotherTypeReadsAsMissingInsteadOfCrashing() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let photo = Photo(
            id: PhotoID(provider: "fake", raw: "1"), title: "t", owner: nil, thumbnailURL: nil, imageURL: nil, width: 10, height: 20,
            pageURL: nil, takenAt: nil, uploadedAt: nil, tags: [], sizes: [])
        let cache = bed.cache()
        defer { cache.close() }
        let query = ListQuery(page: 1, perPage: 1)
        _ = try await cache.listing(query, from: FakeProvider { _, _ in .page([photo]) }, mode: .normal)
        try cache.index.write { db in
            try db.execute(sql: "UPDATE photo SET width = 9.755822223675516e299, height = 'tall', taken_at = 'soon', title = x'00ff'")
        }
        let stored = try #require(try cache.storedListing(ListingKey(provider: "fake", query: query)))
        let read = try #require(stored.page.photos.first)
        #expect(read.id == photo.id)
        #expect(read.width == nil && read.height == nil && read.takenAt == nil)
        #expect(cache.cachedPhoto(photo.id)?.width == nil)
    }

    @Test func completionSkipsIdsOfAnotherTypeAndKeepsTheRest() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let photos = (1...3).map {
            Photo(
                id: PhotoID(provider: "fake", raw: String($0)), title: "t\($0)", owner: nil, thumbnailURL: nil, imageURL: nil, width: nil,
                height: nil, pageURL: nil, takenAt: nil, uploadedAt: nil, tags: [], sizes: [])
        }
        let cache = bed.cache()
        _ = try await cache.listing(ListQuery(page: 1, perPage: 3), from: FakeProvider { _, _ in .page(photos) }, mode: .normal)
        try cache.index.write { db in
            try db.execute(sql: "UPDATE listing_photo SET photo_id = x'ff' WHERE position = 0")
            try db.execute(sql: "UPDATE photo SET title = x'ff' WHERE id = 'fake:2'")
        }
        cache.close()
        let candidates = PhotoCache.recentPhotoIDs(root: bed.folder, prefix: "fake:")
        #expect(candidates.map(\.id) == ["fake:2", "fake:3"])
        #expect(candidates.map(\.title) == ["", "t3"])
    }
}
