import Foundation
import PhotosCore

// The NASA Image and Video Library's Collection+JSON answers, read leniently with
// JSONSerialization: optional fields come and go, key order varies, keywords are a list or a
// comma-separated string. A field of the wrong type becomes nil instead of failing the page.

private func nasaObjects(_ value: Any?) -> [[String: Any]] {
    ((value as? [Any]) ?? []).compactMap { $0 as? [String: Any] }
}

/// `GET /search`: `{"collection":{"version","href","items":[...],"metadata":{"total_hits"},"links":[...]}}`.
struct NASACollection {
    var items: [NASAItem]
    /// Entries of `items` that are not objects: records photos cannot read.
    var nonObjects = 0
    var totalHits: Int?
    /// Whether the collection links to a next page; nil when it carries no links at all.
    var hasNext: Bool?

    /// Nil when `body` is not a JSON object with a `collection` holding `items`.
    init?(_ body: Data) {
        guard let root = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any],
            let collection = root["collection"] as? [String: Any], let items = collection["items"] as? [Any]
        else { return nil }
        self.items = items.compactMap { ($0 as? [String: Any]).map(NASAItem.init) }
        nonObjects = items.count - self.items.count
        totalHits = LenientJSON.int((collection["metadata"] as? [String: Any])?["total_hits"])
        if let links = collection["links"] as? [Any] {
            hasNext = links.contains { LenientJSON.string(($0 as? [String: Any])?["rel"])?.lowercased() == "next" }
        }
    }
}

/// One search result: its metadata (`data[0]`) and its image links.
struct NASAItem {
    var data: NASAData?
    var links: [NASALink]

    init(_ object: [String: Any]) {
        data = nasaObjects(object["data"]).first.map(NASAData.init)
        links = nasaObjects(object["links"]).compactMap(NASALink.init)
    }
}

struct NASAData {
    var nasaID: String?
    var title: String?
    var description: String?
    var keywords: [String]
    var center: String?
    var dateCreated: String?
    var mediaType: String?
    var photographer: String?
    var location: String?
    var secondaryCreator: String?

    init(_ object: [String: Any]) {
        nasaID = LenientJSON.string(object["nasa_id"])
        title = LenientJSON.string(object["title"])
        description = LenientJSON.string(object["description"]) ?? LenientJSON.string(object["description_508"])
        center = LenientJSON.string(object["center"])
        dateCreated = LenientJSON.string(object["date_created"])
        mediaType = LenientJSON.string(object["media_type"])
        photographer = LenientJSON.string(object["photographer"])
        location = LenientJSON.string(object["location"])
        secondaryCreator = LenientJSON.string(object["secondary_creator"])
        let raw: [String]
        if let list = object["keywords"] as? [Any] {
            raw = list.compactMap { LenientJSON.string($0) }
        } else if let text = LenientJSON.string(object["keywords"]) {
            raw = text.split(separator: ",").map(String.init)
        } else {
            raw = []
        }
        keywords = raw.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }
}

/// `{"href","rel","render"}`, with `width`/`height` in newer answers.
struct NASALink {
    var href: String
    var rel: String?
    var render: String?
    var width: Int?
    var height: Int?

    init?(_ object: [String: Any]) {
        guard let href = LenientJSON.string(object["href"]) else { return nil }
        self.href = href
        rel = LenientJSON.string(object["rel"])?.lowercased()
        render = LenientJSON.string(object["render"])?.lowercased()
        width = LenientJSON.int(object["width"])
        height = LenientJSON.int(object["height"])
    }
}

/// `GET /asset/{nasa_id}`: `{"collection":{"items":[{"href": ".../ID~orig.jpg"}, ...]}}`.
struct NASAAssets {
    var hrefs: [String]

    init?(_ body: Data) {
        guard let root = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any],
            let collection = root["collection"] as? [String: Any], let items = collection["items"] as? [Any]
        else { return nil }
        hrefs = items.compactMap { LenientJSON.string(($0 as? [String: Any])?["href"]) }
    }
}

/// An error body's `reason` (`{"reason": "..."}`), on one line, at most 300 characters.
func nasaReason(_ body: Data) -> String? {
    guard let root = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any],
        let reason = LenientJSON.string(root["reason"]) ?? LenientJSON.string(root["message"])
    else { return nil }
    let text = HTMLText.collapse(reason)
    guard !text.isEmpty else { return nil }
    return text.count > 300 ? String(text.prefix(300)) + "…" : text
}
