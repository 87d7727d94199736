import Foundation
import PhotosCore

// Openverse's JSON, read leniently with JSONSerialization: width, height, filetype, title,
// creator and most other fields may be null; a field of the wrong type becomes nil instead of
// failing the whole page.

/// `GET /v1/images/?q=...`: `{"result_count","page_count","page_size","page","results":[...]}`.
struct OpenverseSearch {
    var resultCount: Int?
    /// Pages the API will serve for this query (Openverse caps it at its pagination depth).
    var pageCount: Int?
    var results: [OpenverseImage]
    /// Entries of `results` that are not objects: records photos cannot read.
    var nonObjects = 0

    /// Nil when `body` is not a JSON object with a `results` array.
    init?(_ body: Data) {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any],
            let results = object["results"] as? [Any]
        else { return nil }
        resultCount = LenientJSON.int(object["result_count"])
        pageCount = LenientJSON.int(object["page_count"])
        self.results = results.compactMap { ($0 as? [String: Any]).map(OpenverseImage.init) }
        nonObjects = results.count - self.results.count
    }
}

/// One image, as a search result or as the answer of `GET /v1/images/{id}/`.
struct OpenverseImage {
    var id: String?
    var title: String?
    var foreignLandingURL: String?
    var url: String?
    var creator: String?
    var creatorURL: String?
    var license: String?
    var licenseVersion: String?
    var licenseURL: String?
    var provider: String?
    var source: String?
    var category: String?
    var filetype: String?
    var tags: [String]
    var attribution: String?
    var width: Int?
    var height: Int?
    var thumbnail: String?
    var indexedOn: String?

    init(_ object: [String: Any]) {
        id = LenientJSON.string(object["id"])
        title = LenientJSON.string(object["title"])
        foreignLandingURL = LenientJSON.string(object["foreign_landing_url"])
        url = LenientJSON.string(object["url"])
        creator = LenientJSON.string(object["creator"])
        creatorURL = LenientJSON.string(object["creator_url"])
        license = LenientJSON.string(object["license"])
        licenseVersion = LenientJSON.string(object["license_version"])
        licenseURL = LenientJSON.string(object["license_url"])
        provider = LenientJSON.string(object["provider"])
        source = LenientJSON.string(object["source"])
        category = LenientJSON.string(object["category"])
        filetype = LenientJSON.string(object["filetype"])
        attribution = LenientJSON.string(object["attribution"])
        width = LenientJSON.int(object["width"])
        height = LenientJSON.int(object["height"])
        thumbnail = LenientJSON.string(object["thumbnail"])
        indexedOn = LenientJSON.string(object["indexed_on"])
        tags = ((object["tags"] as? [Any]) ?? []).compactMap { tag in
            let name = LenientJSON.string((tag as? [String: Any])?["name"]) ?? LenientJSON.string(tag)
            return name.flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
        }
    }

    /// The licence as people write it: `CC BY-SA 2.0`, `CC0 1.0`, `Public Domain Mark 1.0`
    /// (Openverse's own naming).
    var licenseName: String? {
        guard let license = license?.trimmingCharacters(in: .whitespaces).lowercased(), !license.isEmpty else { return nil }
        let version = licenseVersion?.trimmingCharacters(in: .whitespaces).nonEmpty.map { " " + $0 } ?? ""
        switch license {
        case "pdm": return "Public Domain Mark" + version
        case "cc0": return "CC0" + version
        default: return "CC " + license.uppercased().replacingOccurrences(of: "SAMPLING", with: "Sampling") + version
        }
    }
}

/// An error body: `{"detail": "Not found."}`, or `{"detail": {"page": ["Ensure ..."]}}` for a
/// parameter Openverse refuses, flattened to one line.
func openverseDetail(_ body: Data) -> String? {
    guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any], let detail = object["detail"] else {
        return nil
    }
    func flatten(_ value: Any) -> String {
        if let text = LenientJSON.string(value) { return text }
        if let list = value as? [Any] { return list.map(flatten).joined(separator: " ") }
        if let map = value as? [String: Any] { return map.keys.sorted().map { "\($0): \(flatten(map[$0] ?? ""))" }.joined(separator: "; ") }
        return ""
    }
    let text = flatten(detail).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    guard !text.isEmpty else { return nil }
    return text.count > 300 ? String(text.prefix(300)) + "…" : text
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
