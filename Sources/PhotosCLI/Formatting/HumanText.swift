import Foundation

/// Byte counts for people: `12.3 MiB`.
enum ByteText {
    static func format(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
    }
}

/// Ages for people: `45 s`, `12 min`, `3 h 5 min`, `2 days`.
enum AgeText {
    static func format(_ seconds: TimeInterval) -> String {
        // Clamped before the conversion: a time left of a limit of 10^18 photos is a number a
        // Double holds and an Int does not.
        let total = seconds.isFinite ? Int(min(max(0, seconds), 1e15)) : 0
        if total < 60 { return "\(total) s" }
        if total < 3600 { return "\(total / 60) min" }
        if total < 86_400 {
            let minutes = (total % 3600) / 60
            return minutes == 0 ? "\(total / 3600) h" : "\(total / 3600) h \(minutes) min"
        }
        let days = total / 86_400
        return days == 1 ? "1 day" : "\(days) days"
    }
}
