import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Rendered output for one image: what chafa printed and the cells it covers.
public struct RenderedTile: Hashable, Sendable {
    public var cells: CellSize
    /// Symbols: `cells.rows` lines joined by "\n", each `cells.columns` wide and ending with
    /// colours reset. Pixel modes: one escape sequence drawn from the cursor's cell.
    public var output: String

    public init(cells: CellSize, output: String) {
        self.cells = cells
        self.output = output
    }
}

/// An on-disk cache of rendered tiles, so an unchanged thumbnail is not decoded and rendered again.
///
/// Location: a folder the caller owns (e.g. `<cache root>/tiles`), one small file per tile.
/// Key: the image's path, size, modification time and inode, the graphics settings, the box the
/// tile was fitted into, and the renderer version; any change misses. Each file repeats its full
/// key, so a hash collision is a miss, never a wrong picture. Size limit: `maximumEntries` files;
/// beyond that the oldest quarter is removed. Failures (unreadable folder, full disk) only cost
/// the cache, never the output.
public struct TileCache: Sendable {
    /// The folder holding the tiles.
    public let directory: URL
    /// Upper bound on the number of tile files kept.
    public let maximumEntries: Int

    /// - Parameters:
    ///   - directory: folder for tile files; created on first store.
    ///   - maximumEntries: upper bound on tile files kept.
    public init(directory: URL, maximumEntries: Int = 2_000) {
        self.directory = directory
        self.maximumEntries = max(1, maximumEntries)
    }

    private static let magic = "photos-tile 1"

    /// The key for drawing `image` into `box`, or nil when the file cannot be stat'ed.
    func key(for image: URL, box: CellSize, renderer: ChafaRenderer) -> String? {
        var info = stat()
        guard stat(image.path, &info) == 0 else { return nil }
        #if canImport(Darwin)
        let mtime = "\(info.st_mtimespec.tv_sec).\(info.st_mtimespec.tv_nsec)"
        #else
        let mtime = "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        #endif
        let graphics = renderer.graphics
        return [
            ChafaRenderer.version, graphics.mode.rawValue, graphics.colors.rawValue, "\(graphics.cellPixelSize)",
            "\(renderer.workFactor)", "\(box)", "\(info.st_size)", mtime, "\(info.st_ino)", image.path,
        ].joined(separator: "|")
    }

    func load(key: String) -> RenderedTile? {
        guard let data = FileManager.default.contents(atPath: file(for: key).path),
              let newline = data.firstIndex(of: UInt8(ascii: "\n"))
        else { return nil }
        let fields = String(decoding: data[data.startIndex..<newline], as: UTF8.self).split(separator: " ")
        guard fields.count == 5, "\(fields[0]) \(fields[1])" == Self.magic,
              let columns = Int(fields[2]), let rows = Int(fields[3]), let keyLength = Int(fields[4]),
              keyLength >= 0, data.endIndex - (newline + 1) >= keyLength
        else { return nil }
        let keyEnd = newline + 1 + keyLength
        guard data[(newline + 1)..<keyEnd].elementsEqual(key.utf8) else { return nil }
        return RenderedTile(cells: CellSize(columns: columns, rows: rows), output: String(decoding: data[keyEnd...], as: UTF8.self))
    }

    func store(_ tile: RenderedTile, key: String) {
        var data = Data("\(Self.magic) \(tile.cells.columns) \(tile.cells.rows) \(key.utf8.count)\n".utf8)
        data.append(contentsOf: key.utf8)
        data.append(contentsOf: tile.output.utf8)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try? data.write(to: file(for: key), options: .atomic)
    }

    /// Keeps the folder under `maximumEntries` files by removing the oldest.
    public func prune() {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: directory.path), names.count > maximumEntries else { return }
        let dated = names.filter { $0.hasSuffix(".tile") }.map { name -> (String, Date) in
            let path = directory.appendingPathComponent(name).path
            let date = (try? manager.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? .distantPast
            return (path, date)
        }.sorted { $0.1 < $1.1 }
        for (path, _) in dated.prefix(max(0, dated.count - maximumEntries * 3 / 4)) {
            try? manager.removeItem(atPath: path)
        }
    }

    /// Removes every cached tile.
    /// - Throws: a file-system error when the folder exists but cannot be removed.
    public func removeAll() throws {
        guard FileManager.default.fileExists(atPath: directory.path) else { return }
        try FileManager.default.removeItem(at: directory)
    }

    private func file(for key: String) -> URL {
        // FNV-1a 64: stable across runs and platforms (unlike Hasher), cheap, good enough with the key check.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return directory.appendingPathComponent(String(repeating: "0", count: 16 - hex.count) + hex + ".tile")
    }
}
