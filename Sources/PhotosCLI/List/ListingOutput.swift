import Foundation
import PhotosCore
import PhotosImaging
import PhotosTerminal

extension Listing {
    func print(
        listings: [ProviderListing], photos: [Photo], thumbnails: Thumbnails, request: ListingRequest, failures: [(String, any Error)] = []
    ) throws {
        let path = thumbnails.path
        switch request.format {
        case .json:
            let totals = listings.map(\.total)
            let document = ListingJSON(
                page: request.page, perPage: listings.first?.perPage ?? request.perPage ?? ListingRequest.defaultPerPage,
                total: totals.contains(where: { $0 == nil }) ? nil : totals.compactMap { $0 }.reduce(0) { $0.addingSaturating($1) },
                hasMore: listings.contains(where: \.hasMore),
                photos: photos.map { PhotoJSON(photo: $0, thumbnailPath: path($0), thumbnailSynthesized: thumbnails.isSynthesized($0)) },
                providers: listings.map {
                    .init(
                        name: $0.name, firstPage: $0.firstPage, lastPage: $0.lastPage, total: $0.total, hasMore: $0.hasMore,
                        count: $0.photos.count, cached: $0.cached, ageSeconds: Int($0.age), error: $0.partialError)
                },
                cached: !listings.isEmpty && listings.allSatisfy(\.cached),
                ageSeconds: Int(listings.map(\.age).max() ?? 0),
                failed: failures.map { .init(provider: $0.0, error: Diagnostics.describe($0.1)) })
            // Written as it is made, a piece at a time.
            let output = PiecewiseOutput()
            var json = JSONText(pretty: true, flushingEvery: PiecewiseOutput.pieceBytes, to: output.write)
            document.write(to: &json)
            json.raw("\n")
            json.flushNow()
            try output.finish()
        case .jsonl:
            // No line at all says nothing of why: said on stderr, as a table says it.
            if photos.isEmpty { Diagnostics.note(Self.nothingShown(listings: listings, request: request)) }
            // Written as it is made, a piece at a time.
            let output = PiecewiseOutput()
            var json = JSONText(pretty: false, flushingEvery: PiecewiseOutput.pieceBytes, to: output.write)
            for photo in photos {
                PhotoJSON(photo: photo, thumbnailPath: path(photo), thumbnailSynthesized: thumbnails.isSynthesized(photo)).write(to: &json)
                json.raw("\n")
            }
            json.flushNow()
            try output.finish()
        case .grid where !photos.isEmpty:
            let graphics = environment.graphics(request.graphics)
            guard graphics.mode != .none else { fallthrough }  // not a terminal: the plain table
            let tiles = photos.map { photo in
                GridTile(title: photo.title, id: photo.id.description, imagePath: path(photo).map { URL(fileURLWithPath: $0) })
            }
            let grid = ThumbnailGrid.render(
                tiles: tiles, columns: request.columns, terminalColumns: environment.terminalWidth, graphics: graphics,
                cache: environment.tileCache)
            try Output.write(grid.text)
            if grid.failures > 0 {
                for failure in ImagingLibrary.loadFailures { Diagnostics.warning(failure.description) }
                Diagnostics.warning("\(grid.failures) of \(tiles.count) thumbnails could not be shown (placeholder tiles)")
            }
            printNextPageHint(listings: listings, request: request)
        case .table, .grid:
            guard !photos.isEmpty else {
                Diagnostics.note(Self.nothingShown(listings: listings, request: request))
                return
            }
            // Ids whole, as `show` takes them (NASA's run to 100 characters after "nasa:"): the
            // title gives way.
            var table = Table(columns: [
                .init("ID", maxWidth: 128), .init("TITLE"), .init("OWNER", maxWidth: 20, minWidth: 10, dropOrder: 1),
                .init("SIZE", maxWidth: 11, alignRight: true, dropOrder: 0),
            ])
            table.rows.reserveCapacity(photos.count)
            // Each field read in place: a copy of each photo retained and released its every string.
            for index in photos.indices {
                var size = ""
                if let width = photos[index].width, let height = photos[index].height { size = String(width) + "×" + String(height) }
                // Every cell made printable here: an untitled photo says so, as `show` does.
                table.append(printable: [
                    Self.idCell(photos[index].id.description), TerminalText.title(photos[index].title),
                    TerminalText.sanitize(photos[index].owner ?? ""), size,
                ])
            }
            try Output.write(bytes: table.renderBytes(width: environment.terminalWidth))
            ExitTeardown.keep(table)
            printNextPageHint(listings: listings, request: request)
        }
    }

    /// An id as `show` takes it: sanitising would make a run of spaces in it one (NASA's ids
    /// hold spaces), so one that is printable is kept as it is, and one that is not is quoted
    /// with its characters escaped.
    static func idCell(_ id: String) -> String {
        if TerminalText.sanitize(id) == id { return id }
        let quoted = TerminalText.quoted(id, width: .max)
        return quoted == "'" + id + "'" ? id : quoted
    }

    /// What an empty table or grid says: nothing matched, or the page asked for is past the end
    /// of what did.
    static func nothingShown(listings: [ProviderListing], request: ListingRequest) -> String {
        let totals = listings.compactMap(\.total)
        let total = totals.reduce(0) { $0.addingSaturating($1) }
        // A provider that does not say its total (Commons) answers a page past the end with
        // nothing: that is not "nothing matches".
        if request.page > 1, totals.count < listings.count {
            return "Page \(request.page) has no photos: the results end before it. Try a lower --page."
        }
        guard request.page > 1, totals.count == listings.count, total > 0 else {
            return request.text.map { "No photos match \"\(TerminalText.fit($0, width: 80))\"." } ?? "No photos."
        }
        let photos = total == 1 ? "1 photo" : "\(total) photos"
        let perPage = Set(listings.map(\.perPage))
        guard listings.count == 1, let size = perPage.first, size > 0 else {
            return "Page \(request.page) is past the end: there are \(photos) in all."
        }
        let pages = total / size + (total % size == 0 ? 0 : 1)
        return "Page \(request.page) is past the end: \(photos) make \(pages == 1 ? "1 page" : "\(pages) pages") of \(size)."
    }

    /// One line on stderr after a table or grid: how many were shown, whether they came from the
    /// cache, and the command for the next page.
    private func printNextPageHint(listings: [ProviderListing], request: ListingRequest) {
        let count = listings.reduce(0) { $0 + $1.photos.count }
        let totalText = listings.count == 1 ? listings[0].total.map { " of \($0)" } ?? "" : ""
        let cachedText = !listings.isEmpty && listings.allSatisfy(\.cached)
            ? " (from the cache, \(AgeText.format(listings.map(\.age).max() ?? 0)) old)" : ""
        var line = "Showing \(count)\(totalText)\(cachedText)."
        let more = listings.filter(\.hasMore)
        if !more.isEmpty, !request.walkAll {
            // The page after the last one shown whole: a page `--limit` cut short is shown again,
            // so that no photo is skipped. Of several providers, the one furthest behind sets it
            // (the others' photos of that page are shown again, none skipped).
            let next = more.map { $0.lastPage.addingSaturating($0.endsInsidePage ? 0 : 1) }.min() ?? request.page.addingSaturating(1)
            var command = ["photos", "list"]
            if let providers = request.providers { command += ["--provider", ShellQuote.quote(providers)] }
            // A search that starts with "-" is given as --query=-dogs: as a word of its own it
            // would be taken for an option.
            if let text = request.text { command += text.hasPrefix("-") ? ["--query=" + ShellQuote.quote(text)] : ["--query", ShellQuote.quote(text)] }
            for (key, value) in request.filters { command += ["--filter", ShellQuote.quote("\(key)=\(value)")] }
            // The page size the walk used, also when `--limit` chose it: pages count in it.
            let sizes = Set(more.map(\.perPage))
            if let perPage = request.perPage ?? (sizes.count == 1 ? sizes.first : nil), perPage != ListingRequest.defaultPerPage || request.perPage != nil {
                command += ["--per-page", String(perPage)]
            }
            // The same view of the next page: a grid stays a grid.
            if request.format == .grid {
                command += ["--format", "grid"]
                if request.columns != 3 { command += ["--columns", String(request.columns)] }
                if request.graphics != .auto { command += ["--graphics", request.graphics.rawValue] }
            }
            // Offline stays offline: the next page from the cache, or a clear "not cached".
            if request.mode == .offline { command += ["--offline"] }
            command += ["--page", String(next)]
            line += " Next page: \(command.joined(separator: " "))"
        }
        Diagnostics.note(line)
    }
}
