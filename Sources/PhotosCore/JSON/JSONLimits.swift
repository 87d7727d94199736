import Foundation

/// A bound on how much JSON one answer may hold, whatever its size in bytes: a 6 MB array of
/// two million empty objects decodes into gigabytes (Foundation's `JSONSerialization` makes an
/// object of each), so an answer is first counted, in one pass over its bytes.
public enum JSONLimits {
    /// More values than any page of photos holds: 500 Flickr photos with every extra are about
    /// 20,000, a page of 500 Openverse images with their tags about 50,000.
    public static let maxValues = 250_000

    /// Whether `data` holds more than `limit` JSON values, counted as the commas and opening
    /// brackets outside strings (an estimate from above for any JSON text, exact enough to tell
    /// a page from a bomb). Stops counting once past `limit`.
    public static func exceeds(_ data: Data, limit: Int = maxValues) -> Bool {
        // Each value takes at least a byte.
        guard data.count > limit else { return false }
        return data.withUnsafeBytes { raw -> Bool in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
            let end = raw.count
            var count = 0
            var index = 0
            while index < end {
                let byte = base[index]
                if byte == 0x22 {
                    // A string: on to its closing quote (memchr, most of an answer's bytes), past
                    // quotes escaped by an odd number of backslashes.
                    var from = index + 1
                    while true {
                        guard let found = memchr(base + from, 0x22, end - from) else { return false }
                        let quote = UnsafeRawPointer(found) - UnsafeRawPointer(base)
                        var backslashes = 0
                        while quote - backslashes - 1 > index, base[quote - backslashes - 1] == 0x5C { backslashes += 1 }
                        if backslashes % 2 == 0 {
                            index = quote + 1
                            break
                        }
                        from = quote + 1
                    }
                    continue
                }
                if byte == 0x2C || byte == 0x7B || byte == 0x5B {
                    count += 1
                    if count > limit { return true }
                }
                index += 1
            }
            return false
        }
    }
}
