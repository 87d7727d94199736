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
            var count = 0
            var inString = false
            var escaped = false
            for byte in raw {
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == 0x5C {
                        escaped = true
                    } else if byte == 0x22 {
                        inString = false
                    }
                } else if byte == 0x22 {
                    inString = true
                } else if byte == 0x2C || byte == 0x7B || byte == 0x5B {
                    count += 1
                    if count > limit { return true }
                }
            }
            return false
        }
    }
}
