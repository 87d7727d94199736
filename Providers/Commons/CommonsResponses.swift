import Foundation
import PhotosCore

// MediaWiki Action API answers, read leniently with JSONSerialization: formatversion 2 sends
// `query.pages` as an array, formatversion 1 as an object keyed by page id (either is read);
// numbers may come as strings; `extmetadata` may be `[]` instead of `{}` when empty. A field
// of the wrong type becomes nil instead of failing the whole answer.

/// The objects of a JSON array, or the values of a JSON object (formatversion 1's keyed maps).
func commonsObjects(_ value: Any?) -> [[String: Any]] {
    if let array = value as? [Any] { return array.compactMap { $0 as? [String: Any] } }
    if let object = value as? [String: Any] {
        return object.keys.sorted().compactMap { object[$0] as? [String: Any] }
    }
    return []
}

/// The top of every answer: the query, the continuation, or the API's error.
struct CommonsAnswer {
    var root: [String: Any]

    /// Parses `body`; nil when it is not a JSON object that looks like an Action API answer.
    init?(_ body: Data) {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else { return nil }
        let known = ["query", "batchcomplete", "continue", "error", "warnings", "servedby", "limits"]
        guard known.contains(where: { object[$0] != nil }) else { return nil }
        root = object
    }

    /// An `error` member that is not the API's `{"code","info"}` object (a string from a proxy):
    /// the answer is then unreadable, not an empty result.
    var hasUnreadableError: Bool {
        guard let value = root["error"] else { return false }
        return !(value is [String: Any])
    }

    /// `{"error":{"code","info"}}`, sent with HTTP 200.
    var error: (code: String, info: String?)? {
        guard let error = root["error"] as? [String: Any] else { return nil }
        return (LenientJSON.string(error["code"]) ?? "unknown", LenientJSON.string(error["info"]))
    }

    var query: [String: Any]? { root["query"] as? [String: Any] }

    /// The `continue` object's value for `key` (`gsroffset`, `cmcontinue`).
    func continuation(_ key: String) -> String? {
        LenientJSON.string((root["continue"] as? [String: Any])?[key])
    }

    /// `query.pages`, in the order the API sent them.
    var pages: [CommonsPage] { commonsObjects(query?["pages"]).map(CommonsPage.init) }

    /// Entries of `query.pages` that are not objects: records photos cannot read.
    var nonObjectPages: Int {
        let value = query?["pages"]
        let count = (value as? [Any])?.count ?? (value as? [String: Any])?.count ?? 0
        return count - commonsObjects(value).count
    }

    /// `query.categorymembers`: page ids in list order.
    var memberIDs: [String] {
        commonsObjects(query?["categorymembers"]).compactMap { LenientJSON.string($0["pageid"]) }
    }
}

/// One page of `query.pages`, with its first imageinfo entry.
struct CommonsPage {
    var pageID: String?
    var namespace: Int?
    var title: String?
    /// The search position (offset + position), on search results only.
    var index: Int?
    /// `missing` or `invalid` (an id the wiki does not have).
    var isMissing: Bool
    var info: CommonsImageInfo?

    init(_ object: [String: Any]) {
        pageID = LenientJSON.string(object["pageid"])
        namespace = LenientJSON.int(object["ns"])
        title = LenientJSON.string(object["title"])
        index = LenientJSON.int(object["index"])
        isMissing = object["missing"] != nil || object["invalid"] != nil
        info = commonsObjects(object["imageinfo"]).first.map(CommonsImageInfo.init)
    }
}

/// imageinfo: the original, the thumbnail asked for, and `extmetadata` (values are HTML).
struct CommonsImageInfo {
    var url: String?
    var width: Int?
    var height: Int?
    var thumbURL: String?
    var thumbWidth: Int?
    var thumbHeight: Int?
    var descriptionURL: String?
    var mime: String?
    var timestamp: String?
    var user: String?
    var metadata: [String: String] = [:]

    init(_ object: [String: Any]) {
        url = LenientJSON.string(object["url"])
        width = LenientJSON.int(object["width"])
        height = LenientJSON.int(object["height"])
        thumbURL = LenientJSON.string(object["thumburl"])
        thumbWidth = LenientJSON.int(object["thumbwidth"])
        thumbHeight = LenientJSON.int(object["thumbheight"])
        descriptionURL = LenientJSON.string(object["descriptionurl"])
        mime = LenientJSON.string(object["mime"])
        timestamp = LenientJSON.string(object["timestamp"])
        user = LenientJSON.string(object["user"])
        // `{"Artist": {"value": "...", "source": "...", "hidden": ""}}`; `[]` when empty. A value
        // can also be a map of languages (iiextmetadatamultilang): English, else any.
        if let entries = object["extmetadata"] as? [String: Any] {
            for (name, entry) in entries {
                guard let entry = entry as? [String: Any] else { continue }
                if let value = LenientJSON.string(entry["value"]) {
                    metadata[name] = value
                } else if let languages = entry["value"] as? [String: Any] {
                    let text = LenientJSON.string(languages["en"]) ?? languages.keys.sorted().lazy.compactMap { LenientJSON.string(languages[$0]) }.first
                    if let text { metadata[name] = text }
                }
            }
        }
    }

    /// A metadata field as plain text; nil when absent or blank.
    func text(_ name: String) -> String? {
        guard let html = metadata[name] else { return nil }
        let text = HTMLText.plain(html)
        return text.isEmpty ? nil : text
    }
}
