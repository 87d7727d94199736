import Foundation
import PhotosCache
import PhotosCore
import PhotosTerminal
import StandardStreams
import Synchronization

/// One photo to save, as the input named it.
enum SaveInput: Sendable {
    /// A photo of a listing, with what the listing knew.
    case photo(Photo)
    /// An id (an argument, a line of stdin), with the photo a JSON line described when it names
    /// its sizes (`photos show --format json`), or else what a listing's line knew of it
    /// (`photos list --format jsonl`: its image, saved when the provider has no detail for it).
    case id(PhotoID, described: Photo?, listed: Photo? = nil)
    /// A line or argument that is not a photo id.
    case invalid(String, reason: String)

    /// The photo it names, if any.
    var photoID: PhotoID? {
        switch self {
        case .photo(let photo): return photo.id
        case .id(let id, _, _): return id
        case .invalid: return nil
        }
    }

    /// How the summary names it.
    var label: String {
        switch self {
        case .photo(let photo): return photo.id.description
        case .id(let id, _, _): return id.description
        case .invalid(let text, _): return text
        }
    }
}

/// One ordered stream of inputs: one provider's pages, stdin, or the ids given. Its producer
/// runs in its own task and stays at most a batch or two ahead of the downloads.
struct SaveLane: Sendable {
    let name: String
    let channel = BatchChannel<[SaveInput]>(capacity: 1)
    /// Fills the channel and finishes it (with the error that ended it, if any).
    let produce: @Sendable (BatchChannel<[SaveInput]>) async -> Void
    /// Photos the lane expects to deliver, when known up front (ids given, --limit).
    let expected: Int?
}

/// Builds the lanes of a save from its source.
final class SaveInputs: Sendable {
    let context: CommandContext

    init(context: CommandContext) {
        self.context = context
    }

    /// Each listing lane's walk once it ended, by lane name (for the warnings `list` gives too).
    let listings = Mutex<[String: ProviderListing]>([:])

    /// - Throws: `PhotosError.usage` for ids or providers that cannot be used, before any work.
    func lanes(for source: SaveRequest.Source) throws -> [SaveLane] {
        switch source {
        case .ids(let texts):
            let inputs = try texts.map(parseArgument)
            return [SaveLane(name: "ids", produce: { channel in
                for batch in inputs.chunked(500) { try? await channel.send(Array(batch)) }
                channel.finish()
            }, expected: inputs.count)]
        case .standardInput:
            if photos_standard_stream_was_closed(STDIN_FILENO) {
                throw PhotosError.usage("the standard input is closed: pipe ids, or the output of photos list, into photos save -")
            }
            if isatty(STDIN_FILENO) == 1 {
                // Typed by hand (or forgotten): say what is read, and how it ends.
                Diagnostics.note("Reading photo ids from the terminal, one a line; Ctrl-D ends the list.")
            }
            let reader = LineReader()
            let registry = context.environment.registry, providerContext = context.providers
            return [SaveLane(name: "stdin", produce: { channel in
                do {
                    var joiner = JSONLineJoiner()
                    var spelling = IDSpelling(registry: registry, context: providerContext)
                    while let lines = try await reader.next(upTo: 500) {
                        let inputs = lines.flatMap { joiner.add($0) }.flatMap(Self.parseInputs).map { spelling.canonical($0) }
                        if !inputs.isEmpty { try await channel.send(inputs) }
                    }
                    if let rest = joiner.finish().map(Self.parseInputs)?.map({ spelling.canonical($0) }), !rest.isEmpty {
                        try await channel.send(rest)
                    }
                    channel.finish()
                } catch {
                    channel.finish(throwing: error)
                }
            }, expected: nil)]
        case .listing(let request):
            let environment = context.environment
            let names = try ProviderSelection(environment: environment).resolve(request.providers, filters: request.filters, query: request.text)
            let walker = PageWalker(cache: context.cache, registry: environment.registry)
            let providers = context.providers
            let inputs = self
            return try names.map { name in
                guard let provider = environment.registry.make(name, context: providers) else {
                    throw PhotosError.usage("unknown provider \(name)")
                }
                var walker = walker
                if let imageHost = provider.imageHost {
                    // While the first page the cache lacks is on its way, the connections the
                    // files in flight will need come up.
                    let http = inputs.context.http, listingHost = provider.listingHost, once = OnceFlag()
                    let files = min(request.limit ?? Saving.filesInFlight, Saving.filesInFlight)
                    walker.beforeFetching = {
                        if once.claim() { http.preconnect(to: imageHost, forTransfers: files, alongside: listingHost) }
                    }
                }
                return SaveLane(name: name, produce: { [walker] channel in
                    var pages = walker.pages(request, from: provider)
                    do {
                        while let photos = try await pages.next() {
                            if !photos.isEmpty { try await channel.send(photos.map(SaveInput.photo)) }
                        }
                        inputs.listings.withLock { $0[name] = pages.listing }
                        channel.finish()
                    } catch {
                        inputs.listings.withLock { $0[name] = pages.listing }
                        channel.finish(throwing: error)
                    }
                }, expected: request.limit)
            }
        }
    }

    /// An id given as an argument: a usage error when it cannot be one.
    private func parseArgument(_ text: String) throws -> SaveInput {
        let registry = context.environment.registry
        guard let id = PhotoID(text) else {
            throw PhotosError.usage("\(TerminalText.quoted(text)) is not a photo id; ids look like provider:id, e.g. flickr:53624890009 or placeholder:17")
        }
        guard let provider = registry.make(id.provider, context: context.providers) else {
            if id.isWebAddress { throw PhotosError.usage(PhotoID.webAddressMessage(TerminalText.quoted(text))) }
            throw ProviderSelection.unknownProvider(id.provider, known: registry.names, origin: " in \(TerminalText.quoted(text))")
        }
        guard let raw = provider.canonicalID(id.raw) else {
            let form = registry.descriptor(id.provider).map { ": they look like \($0.idSyntax), e.g. \($0.idExample)" } ?? ""
            throw PhotosError.usage("\(TerminalText.quoted(text)) is not a valid \(id.provider) photo id\(form)")
        }
        return .id(PhotoID(provider: id.provider, raw: raw), described: nil)
    }

    /// A line of stdin (or an object spread over lines, see ``JSONLineJoiner``): an id, a photo
    /// object as `photos list --format jsonl` and `photos show --format json` print it, or the
    /// whole document of `photos list --format json`, whose photos it names in order; nothing
    /// for a blank line.
    ///
    /// A line that is not JSON is read by its first word, so that the table of `photos list`
    /// (whose first column is the id; its header line is passed over) and ids followed by notes
    /// work too; a line starting with `#` is a comment.
    static func parseInputs(_ line: String) -> [SaveInput] {
        let text = line.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, !text.hasPrefix("#") else { return [] }
        guard text.hasPrefix("{") else {
            let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
            let first = words.first.map(String.init) ?? text
            guard let id = PhotoID(first) else {
                if first == "ID", words.dropFirst().first == "TITLE" { return [] }  // the table's header
                return [.invalid(excerpt(text), reason: "not a photo id (provider:id) or a photo object of photos list --format jsonl")]
            }
            return [.id(id, described: nil)]
        }
        let invalid = SaveInput.invalid(
            excerpt(text), reason: "not a JSON object that names a photo (give ids, or pipe photos list --format jsonl)")
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else { return [invalid] }
        if object["id"] == nil, let photos = object["photos"] as? [Any] {
            return photos.map { element in
                guard let photo = element as? [String: Any] else { return invalid }
                return input(from: photo) ?? invalid
            }
        }
        return [input(from: object) ?? invalid]
    }

    /// The start of `text` on one line, to name it in a report.
    private static func excerpt(_ text: String) -> String {
        String(text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ").prefix(60))
    }

    /// The photo a JSON object names by its `id`, with its sizes when it lists them, or else its
    /// image when it names one.
    private static func input(from object: [String: Any]) -> SaveInput? {
        guard let idText = object["id"] as? String, let id = PhotoID(idText) else { return nil }
        if let described = describedPhoto(id, object) { return .id(id, described: described) }
        return .id(id, described: nil, listed: listedPhoto(id, object))
    }

    /// The photo a JSON object describes, when it names its sizes (the `sizes` of show's JSON):
    /// enough to choose a size without asking the provider.
    static func describedPhoto(_ id: PhotoID, _ object: [String: Any]) -> Photo? {
        guard let list = object["sizes"] as? [[String: Any]] else { return nil }
        let sizes = list.compactMap { size -> PhotoSize? in
            guard let url = size["url"] as? String, URLPolicy.isAllowed(url) else { return nil }
            return PhotoSize(label: size["label"] as? String ?? "", width: size["width"] as? Int, height: size["height"] as? Int, url: url)
        }
        guard !sizes.isEmpty else { return nil }
        return photo(id, object, sizes: sizes)
    }

    /// What a line of `photos list --format jsonl` knew of a photo, when it names an image photos
    /// may fetch.
    static func listedPhoto(_ id: PhotoID, _ object: [String: Any]) -> Photo? {
        guard let image = object["image_url"] as? String, URLPolicy.isAllowed(image) else { return nil }
        return photo(id, object, sizes: [])
    }

    private static func photo(_ id: PhotoID, _ object: [String: Any], sizes: [PhotoSize]) -> Photo {
        let dates = ISO8601DateFormatter()
        return Photo(
            id: id, title: object["title"] as? String ?? "", owner: object["owner"] as? String,
            thumbnailURL: object["thumbnail_url"] as? String, imageURL: object["image_url"] as? String,
            width: object["width"] as? Int, height: object["height"] as? Int, pageURL: object["page_url"] as? String,
            takenAt: (object["taken_at"] as? String).flatMap(dates.date), uploadedAt: (object["uploaded_at"] as? String).flatMap(dates.date),
            tags: object["tags"] as? [String] ?? [], sizes: sizes)
    }
}

/// Joins the lines of a pretty-printed JSON object (`photos show --format json`, `photos list
/// --format json`) into one, so that stdin may hold JSON Lines, ids, or whole objects.
///
/// The lines inside a pretty-printed object are indented, and it closes with a `}` at the start
/// of a line: a line that starts otherwise while an object is open is new input, and the object
/// before it was cut short (it is handed over as it is, to be reported). So one broken line
/// never swallows the lines after it.
struct JSONLineJoiner {
    private var pending: String?
    /// The braces of `pending` so far: each line is scanned once (scanning the whole object again
    /// at each of its lines made a pretty-printed `list --format json` of 2000 photos take 80 s).
    private var braces = BraceCount()
    /// The most an object may hold (a `list --format json` of thousands of photos fits).
    private static let limit = 8 << 20

    /// The lines to read now: none while an object spans more lines, two when `line` cut one
    /// short.
    mutating func add(_ line: String) -> [String] {
        if var text = pending {
            if Self.startsInput(line) {
                pending = nil
                return [text] + add(line)
            }
            pending = nil  // appended to without a copy
            text += "\n"
            text += line
            braces.scan(line)
            if braces.isBalanced || text.utf8.count > Self.limit { return [text] }
            pending = text
            return []
        }
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("{") {
            var count = BraceCount()
            count.scan(trimmed)
            if !count.isBalanced {
                pending = line
                braces = count
                return []
            }
        }
        return [line]
    }

    /// Whether `line` begins input of its own rather than continuing a pretty-printed object:
    /// it starts with neither indentation nor a closing bracket.
    static func startsInput(_ line: String) -> Bool {
        guard let first = line.utf8.first else { return false }
        return first != 0x20 && first != 0x09 && first != UInt8(ascii: "}") && first != UInt8(ascii: "]")
    }

    /// What is left at the end of the input.
    mutating func finish() -> String? {
        defer { pending = nil }
        return pending
    }

}

/// The braces outside strings of a text read piece by piece.
struct BraceCount {
    private var depth = 0
    private var inString = false
    private var escaped = false

    var isBalanced: Bool { depth <= 0 }

    mutating func scan(_ text: String) {
        for byte in text.utf8 {
            if inString {
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
                continue
            }
            switch byte {
            case 0x22: inString = true
            case 0x7B: depth += 1
            case 0x7D: depth -= 1
            default: break
            }
        }
    }
}

extension Array {
    /// The elements in runs of at most `size`.
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: Swift.max(1, size)).map { self[$0..<Swift.min($0 + size, count)] }
    }
}

/// Ids read from stdin as their providers spell them (`flickr:053624890009` is
/// `flickr:53624890009`), as ids given as arguments are: the same photo twice is then saved once.
/// An id its provider does not take stays as it came, to fail with the provider's reason.
struct IDSpelling {
    let registry: ProviderRegistry
    let context: ProviderContext
    private var providers: [String: (any PhotoProvider)?] = [:]

    init(registry: ProviderRegistry, context: ProviderContext) {
        self.registry = registry
        self.context = context
    }

    mutating func canonical(_ input: SaveInput) -> SaveInput {
        guard case .id(let id, let described, let listed) = input else { return input }
        if providers[id.provider] == nil { providers[id.provider] = .some(registry.make(id.provider, context: context)) }
        guard let provider = providers[id.provider] ?? nil, let raw = provider.canonicalID(id.raw), raw != id.raw else { return input }
        let spelled = PhotoID(provider: id.provider, raw: raw)
        func respelled(_ photo: Photo?) -> Photo? {
            photo.map { photo in
                var photo = photo
                photo.id = spelled
                return photo
            }
        }
        return .id(spelled, described: respelled(described), listed: respelled(listed))
    }
}
