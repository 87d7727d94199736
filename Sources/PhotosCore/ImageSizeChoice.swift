import Foundation

/// Which size of a photo to download (`photos save --size`).
public enum ImageSizeChoice: String, Sendable, CaseIterable {
    /// The largest the provider offers: its "Original" size when it names one, else the largest.
    case original
    /// About 1024 px on the longest edge (Flickr's "Large").
    case large
    /// About 640 px (Flickr's "Medium 640").
    case medium
    /// About 320 px (Flickr's "Small 320").
    case small

    /// Smallest first: small 0, medium 1, large 2, original 3.
    public var rank: Int {
        switch self {
        case .small: return 0
        case .medium: return 1
        case .large: return 2
        case .original: return 3
        }
    }

    /// The longest edge a size should at least have; nil for `original`.
    public var targetEdge: Int? {
        switch self {
        case .original: return nil
        case .large: return 1024
        case .medium: return 640
        case .small: return 320
        }
    }

    /// The size to download among `sizes`: for `original`, the one labelled "Original" or else
    /// the largest; for the others, the smallest whose longest edge reaches the target, or the
    /// largest when none does. Sizes without an http(s) URL are never chosen (the next best is);
    /// sizes without dimensions only when no size has them.
    /// - Returns: nil when no size is usable.
    public func choose(from sizes: [PhotoSize]) -> PhotoSize? {
        // Best first; only the candidates tried are parsed (URLPolicy is the costly part).
        let measured = sizes.filter { $0.longestEdge > 0 }
        var ranked: [PhotoSize] = []
        if self == .original { ranked += sizes.filter { $0.label.lowercased() == "original" } }
        if let target = targetEdge {
            ranked += measured.filter { $0.longestEdge >= target }.sorted { $0.longestEdge < $1.longestEdge }
            ranked += measured.filter { $0.longestEdge < target }.sorted { $0.longestEdge > $1.longestEdge }
        } else {
            ranked += measured.sorted { $0.longestEdge > $1.longestEdge }
        }
        // Sizes without dimensions last, by what their labels say (NASA's come largest first,
        // Commons' and Openverse's smallest first): for `original` the largest; for the others
        // the one named as asked, else the nearest larger, else the nearest smaller (`--size
        // small` fetched NASA's original, tens of megabytes, when no size had dimensions).
        // Among labels that say nothing, the later first.
        let unmeasured = sizes.enumerated().filter { $0.element.longestEdge == 0 }
        let wanted = self == .original ? nil : Self.labelRank(rawValue)
        func order(_ rank: Int) -> (Int, Int) {
            guard let wanted, rank > 0 else { return (rank > 0 ? 0 : 1, -rank) }
            return rank >= wanted ? (0, rank) : (0, 10 - rank)
        }
        ranked += unmeasured.sorted { left, right in
            let (l, r) = (order(Self.labelRank(left.element.label)), order(Self.labelRank(right.element.label)))
            return l != r ? l < r : left.offset > right.offset
        }.map(\.element)
        return ranked.first { URLPolicy.isAllowed($0.url) }
    }

    /// How large a size's label says it is: original 5 down to thumbnail 1; 0 for a label that
    /// says nothing of its size.
    static func labelRank(_ label: String) -> Int {
        switch label.lowercased() {
        case "original": return 5
        case "large": return 4
        case "medium": return 3
        case "small": return 2
        case "thumb", "thumbnail": return 1
        default: return 0
        }
    }

    /// The URL to download for `photo`: from its sizes, else its own image URL.
    /// - Returns: nil when the photo names no image photos may fetch.
    public func url(for photo: Photo) -> String? {
        if let size = choose(from: photo.sizes) { return size.url }
        return photo.imageURL.flatMap { URLPolicy.isAllowed($0) ? $0 : nil }
    }
}
