import Foundation

/// Gives every photo of one save its own path, deterministically: photos are named in the order
/// of the input (a listing's order, providers taken in turn page by page), the first to want a
/// name gets it, later ones get `NAME-2.EXT`, `NAME-3.EXT`... Names are compared as case- and
/// normalisation-insensitive file systems compare them, so two names never land on one file.
///
/// A name is also refused when the file already there belongs to another photo (its
/// ``SavedFile/ownerAttribute`` says so): a re-run after the listing changed never takes another
/// photo's file for its own.
struct NameAssigner {
    /// The longest file name, leaving room for `.part` and `.json` beside it.
    let maxFileNameBytes: Int
    /// Whether `NAME.json` is written beside each file (then it is reserved too).
    let metadata: Bool
    private var used = Set<String>()

    init(maxFileNameBytes: Int = FileNameSanitizer.maxComponentBytes - 5, metadata: Bool) {
        self.maxFileNameBytes = maxFileNameBytes
        self.metadata = metadata
    }

    /// The path for `components` (folders and a file name, already safe), relative to `--to`.
    /// - Parameter isTaken: whether the relative path holds a file of another photo.
    mutating func assign(_ components: [String], isTaken: (String) -> Bool) -> String {
        let folders = components.dropLast().joined(separator: "/")
        let name = components.last ?? "_"
        var stem = Substring(name)
        var ext: Substring = ""
        if let dot = name.lastIndex(of: "."), dot != name.startIndex, name.utf8.distance(from: dot, to: name.endIndex) <= 17 {
            stem = name[..<dot]
            ext = name[dot...]
        }
        var number = 1
        while true {
            let suffix = "-\(number)"
            let candidate = number == 1
                ? name
                : FileNameSanitizer.prefix(stem, maxBytes: maxFileNameBytes - suffix.utf8.count - ext.utf8.count) + suffix + ext
            let path = folders.isEmpty ? candidate : folders + "/" + candidate
            let key = Self.key(path)
            let sidecar = key + ".json"
            if !used.contains(key), !(metadata && used.contains(sidecar)), !isTaken(path) {
                used.insert(key)
                if metadata { used.insert(sidecar) }
                return path
            }
            number += 1
        }
    }

    /// How file systems that ignore case and Unicode normalisation (APFS, NTFS, exFAT) see a path.
    static func key(_ path: String) -> String {
        FileNameSanitizer.composed(path).lowercased()
    }
}
