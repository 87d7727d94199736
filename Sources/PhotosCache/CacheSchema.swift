import GRDB

/// The index schema, one migration per version (never edit a shipped migration: add one).
///
/// The version lives in `PRAGMA user_version`; migrations run in one IMMEDIATE transaction that
/// re-reads the version, so several processes opening a new cache at once migrate it exactly
/// once. (GRDB's `DatabaseMigrator` reads the applied migrations outside its write transaction,
/// which races between processes.)
///
/// - `listing`: one page of one listing, keyed by provider + query text + filters + page +
///   per-page (``ListingKey``), never by a URL (URLs carry API keys); its HTTP validators;
///   `fetched_at` (when the network last confirmed it) and `last_access`.
/// - `photo`: the unified photo model, one row per `provider:raw` id; `sizes` (version 2) holds
///   the sizes a listing named (`WIDTH US HEIGHT US LABEL US URL` records separated by RS), so
///   that `photos save` can choose one from the cache. A rowid table since version 3 (its rows
///   outgrew what a WITHOUT ROWID table keeps in a page).
/// - `listing_photo`: which photos a listing page holds, in order.
/// - `image`: content-addressed files by source URL: path (relative to the cache root),
///   recorded size, provider, created and last access times (the LRU order).
/// - `run`: no longer written (`cache clear` still empties it). Runs are counted in `runs.log`
///   beside the index (``RunLog``), where a command that only read the cache can count itself
///   without a write to the index.
/// - `meta`: small facts such as the time of the last maintenance sweep.
enum CacheSchema {
    /// Brings `queue` to the current version; a no-op read when it is there already.
    /// - Returns: whether this call made the schema in an empty file (a new index).
    /// - Throws: `DatabaseError`, including `SQLITE_NOTADB`/`SQLITE_CORRUPT` for a broken file.
    @discardableResult
    static func migrate(_ queue: DatabaseQueue) throws -> Bool {
        let current = try queue.read { try Int.fetchOne($0, sql: "PRAGMA user_version") ?? 0 }
        if current == migrations.count { return false }
        // An index a later photos made: its tables may not be what this one reads and writes.
        if current > migrations.count { throw NewerCacheIndex(version: current) }
        return try queue.write { db in
            let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            if version > migrations.count { throw NewerCacheIndex(version: version) }
            guard version < migrations.count else { return false }
            var created = false
            if version == 0, try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") == 0 {
                // A new index gets today's schema in one go: each migration's DDL makes SQLite
                // parse the whole schema again, and version 3 rebuilds a table (opening a new
                // index took 10 M instructions through the migrations, 5.4 M this way).
                try db.execute(sql: currentSchema)
                created = true
            } else {
                for migration in migrations[version...] { try migration(db) }
            }
            try db.execute(sql: "PRAGMA user_version = \(migrations.count)")
            return created
        }
    }

    /// The schema the migrations build, for a new index (`CacheSchemaTests` holds the two equal,
    /// column by column and index by index).
    static let currentSchema = """
        CREATE TABLE listing (
            id INTEGER PRIMARY KEY,
            key TEXT NOT NULL UNIQUE,
            search_key TEXT NOT NULL,
            provider TEXT NOT NULL,
            query_text TEXT,
            filters TEXT NOT NULL,
            page INTEGER NOT NULL,
            per_page INTEGER NOT NULL,
            total INTEGER,
            has_more BOOLEAN NOT NULL,
            photo_count INTEGER NOT NULL,
            etag TEXT,
            last_modified TEXT,
            stored_at DOUBLE NOT NULL,
            fetched_at DOUBLE NOT NULL,
            last_access DOUBLE NOT NULL
        );
        CREATE INDEX listing_by_search ON listing(search_key, last_access);
        CREATE INDEX listing_by_provider ON listing(provider);
        CREATE INDEX listing_by_access ON listing(last_access);

        CREATE TABLE photo (
            id TEXT PRIMARY KEY,
            provider TEXT NOT NULL,
            raw TEXT NOT NULL,
            title TEXT NOT NULL,
            owner TEXT,
            thumbnail_url TEXT,
            image_url TEXT,
            width INTEGER,
            height INTEGER,
            page_url TEXT,
            taken_at DOUBLE,
            uploaded_at DOUBLE,
            tags TEXT,
            updated_at DOUBLE NOT NULL,
            sizes TEXT
        );
        CREATE INDEX photo_by_provider ON photo(provider);

        CREATE TABLE listing_photo (
            listing_id INTEGER NOT NULL REFERENCES listing(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            photo_id TEXT NOT NULL,
            PRIMARY KEY (listing_id, position)
        ) WITHOUT ROWID;
        CREATE INDEX listing_photo_by_photo ON listing_photo(photo_id);

        CREATE TABLE image (
            url TEXT PRIMARY KEY,
            path TEXT NOT NULL,
            size INTEGER NOT NULL,
            provider TEXT,
            created_at DOUBLE NOT NULL,
            last_access DOUBLE NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX image_by_access ON image(last_access);
        CREATE INDEX image_by_provider ON image(provider);

        CREATE TABLE run (
            id INTEGER PRIMARY KEY,
            at DOUBLE NOT NULL,
            command TEXT NOT NULL,
            listing_hits INTEGER NOT NULL,
            listing_misses INTEGER NOT NULL,
            image_hits INTEGER NOT NULL,
            image_misses INTEGER NOT NULL
        );

        CREATE TABLE meta (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        ) WITHOUT ROWID;
        """

    /// Version N+1 is `migrations[N]`.
    static let migrations: [@Sendable (Database) throws -> Void] = [
        { db in
            try db.execute(sql: """
                CREATE TABLE listing (
                    id INTEGER PRIMARY KEY,
                    key TEXT NOT NULL UNIQUE,
                    search_key TEXT NOT NULL,
                    provider TEXT NOT NULL,
                    query_text TEXT,
                    filters TEXT NOT NULL,
                    page INTEGER NOT NULL,
                    per_page INTEGER NOT NULL,
                    total INTEGER,
                    has_more BOOLEAN NOT NULL,
                    photo_count INTEGER NOT NULL,
                    etag TEXT,
                    last_modified TEXT,
                    stored_at DOUBLE NOT NULL,
                    fetched_at DOUBLE NOT NULL,
                    last_access DOUBLE NOT NULL
                );
                CREATE INDEX listing_by_search ON listing(search_key, last_access);
                CREATE INDEX listing_by_provider ON listing(provider);
                CREATE INDEX listing_by_access ON listing(last_access);

                CREATE TABLE photo (
                    id TEXT PRIMARY KEY,
                    provider TEXT NOT NULL,
                    raw TEXT NOT NULL,
                    title TEXT NOT NULL,
                    owner TEXT,
                    thumbnail_url TEXT,
                    image_url TEXT,
                    width INTEGER,
                    height INTEGER,
                    page_url TEXT,
                    taken_at DOUBLE,
                    uploaded_at DOUBLE,
                    tags TEXT,
                    updated_at DOUBLE NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX photo_by_provider ON photo(provider);

                CREATE TABLE listing_photo (
                    listing_id INTEGER NOT NULL REFERENCES listing(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    photo_id TEXT NOT NULL,
                    PRIMARY KEY (listing_id, position)
                ) WITHOUT ROWID;
                CREATE INDEX listing_photo_by_photo ON listing_photo(photo_id);

                CREATE TABLE image (
                    url TEXT PRIMARY KEY,
                    path TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    provider TEXT,
                    created_at DOUBLE NOT NULL,
                    last_access DOUBLE NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX image_by_access ON image(last_access);
                CREATE INDEX image_by_provider ON image(provider);

                CREATE TABLE run (
                    id INTEGER PRIMARY KEY,
                    at DOUBLE NOT NULL,
                    command TEXT NOT NULL,
                    listing_hits INTEGER NOT NULL,
                    listing_misses INTEGER NOT NULL,
                    image_hits INTEGER NOT NULL,
                    image_misses INTEGER NOT NULL
                );

                CREATE TABLE meta (
                    key TEXT PRIMARY KEY,
                    value TEXT NOT NULL
                ) WITHOUT ROWID;
                """)
        },
        { db in
            try db.execute(sql: "ALTER TABLE photo ADD COLUMN sizes TEXT")
        },
        { db in
            // `photo` as an ordinary rowid table. With its sizes a row is about 1.1 KB, more
            // than a WITHOUT ROWID table keeps in its B-tree cell (about 1 KB on 4 KB pages):
            // every row had an overflow page of its own, 572 pages for 500 photos, where a rowid
            // table packs three or four rows a page.
            try db.execute(sql: """
                CREATE TABLE photo_rows (
                    id TEXT PRIMARY KEY,
                    provider TEXT NOT NULL,
                    raw TEXT NOT NULL,
                    title TEXT NOT NULL,
                    owner TEXT,
                    thumbnail_url TEXT,
                    image_url TEXT,
                    width INTEGER,
                    height INTEGER,
                    page_url TEXT,
                    taken_at DOUBLE,
                    uploaded_at DOUBLE,
                    tags TEXT,
                    updated_at DOUBLE NOT NULL,
                    sizes TEXT
                );
                INSERT INTO photo_rows (id, provider, raw, title, owner, thumbnail_url, image_url, width, height, page_url,
                    taken_at, uploaded_at, tags, updated_at, sizes)
                SELECT id, provider, raw, title, owner, thumbnail_url, image_url, width, height, page_url,
                    taken_at, uploaded_at, tags, updated_at, sizes FROM photo;
                DROP TABLE photo;
                ALTER TABLE photo_rows RENAME TO photo;
                CREATE INDEX photo_by_provider ON photo(provider);
                """)
        },
    ]
}

/// An index whose schema version is past the last this photos knows: made by a later photos,
/// left as it is (that photos still reads it), and not used by this one.
struct NewerCacheIndex: Error, CustomStringConvertible {
    var version: Int

    var description: String {
        "it was made by a newer photos (schema \(version); this one reads up to \(CacheSchema.migrations.count))"
    }
}
