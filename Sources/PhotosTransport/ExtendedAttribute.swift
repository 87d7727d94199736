internal import CXattr
import Foundation

/// Small values kept in a file's extended attributes (`user.` names): what a partial download
/// is a prefix of, whose photo a saved file is. Best effort: on a file system without extended
/// attributes nothing is kept and nothing is found. Links are never followed.
public enum ExtendedAttribute {
    /// What the bytes of a resumable download are a prefix of: `VALIDATOR\nURL`.
    public static let resumableDownload = "user.photos.resume"

    /// The value of `name` on the file at `path`, nil when absent or unreadable.
    public static func get(_ name: String, path: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let length = buffer.withUnsafeMutableBytes { bytes in
            #if os(Linux)
            lgetxattr(path, name, bytes.baseAddress, bytes.count)
            #else
            getxattr(path, name, bytes.baseAddress, bytes.count, 0, XATTR_NOFOLLOW)
            #endif
        }
        guard length > 0 else { return nil }
        return String(decoding: buffer[..<length], as: UTF8.self)
    }

    /// Whether the file system of `path` keeps extended attributes: false only when it says it
    /// has none (a file system that cannot be asked counts as keeping them).
    public static func areKept(at path: String) -> Bool {
        var byte: UInt8 = 0
        #if os(Linux)
        let result = lgetxattr(path, "user.photos.probe", &byte, 1)
        #else
        let result = getxattr(path, "user.photos.probe", &byte, 1, 0, XATTR_NOFOLLOW)
        #endif
        return result >= 0 || errno != ENOTSUP
    }

    /// Sets `name` on the file at `path`; returns whether it was stored.
    @discardableResult
    public static func set(_ name: String, _ value: String, path: String) -> Bool {
        let bytes = Array(value.utf8)
        return bytes.withUnsafeBytes { raw in
            #if os(Linux)
            lsetxattr(path, name, raw.baseAddress, raw.count, 0) == 0
            #else
            setxattr(path, name, raw.baseAddress, raw.count, 0, XATTR_NOFOLLOW) == 0
            #endif
        }
    }

    /// Sets `name` on an open file.
    @discardableResult
    static func set(_ name: String, _ value: String, descriptor: Int32) -> Bool {
        let bytes = Array(value.utf8)
        return bytes.withUnsafeBytes { raw in
            #if os(Linux)
            fsetxattr(descriptor, name, raw.baseAddress, raw.count, 0) == 0
            #else
            fsetxattr(descriptor, name, raw.baseAddress, raw.count, 0, 0) == 0
            #endif
        }
    }

    /// Removes `name` from the file at `path`.
    public static func remove(_ name: String, path: String) {
        #if os(Linux)
        _ = lremovexattr(path, name)
        #else
        _ = removexattr(path, name, XATTR_NOFOLLOW)
        #endif
    }

    /// Removes `name` from an open file.
    static func remove(_ name: String, descriptor: Int32) {
        #if os(Linux)
        _ = fremovexattr(descriptor, name)
        #else
        _ = fremovexattr(descriptor, name, 0)
        #endif
    }
}
