import Foundation

/// Fields of a provider's JSON (as JSONSerialization reads it) taken leniently: a number sent as
/// a string is read, and a field of the wrong type is nil rather than a failed page. What no
/// provider means by a field is never read into it: a boolean is neither text nor a number
/// (`"title": false` is no title "0", `"width": true` no width of 1 pixel).
public enum LenientJSON {
    /// A string as it is, a number written out; nil for anything else.
    public static func string(_ value: Any?) -> String? {
        if let text = value as? String { return text }
        if let number = value as? NSNumber, !isBoolean(number) { return number.stringValue }
        return nil
    }

    /// A whole number, sent as a number or as a string holding one, of at most 15 digits (what
    /// a Double holds exactly, and far past any count or size a provider sends); nil otherwise.
    public static func int(_ value: Any?) -> Int? {
        if let text = value as? String {
            guard let number = Int(text.trimmingCharacters(in: .whitespaces)), digits15.contains(number) else { return nil }
            return number
        }
        if let number = value as? NSNumber, !isBoolean(number) {
            let double = number.doubleValue
            guard double.isFinite, double == double.rounded(), abs(double) < 1e15 else { return nil }
            return Int(double)
        }
        return nil
    }

    /// The whole numbers of at most 15 digits (no `abs`: that of Int.min traps).
    private static let digits15 = -999_999_999_999_999...999_999_999_999_999

    /// JSONSerialization reads `true` and `false` as NSNumbers of type `c` (char): no JSON
    /// number is read as one.
    static func isBoolean(_ number: NSNumber) -> Bool {
        number.objCType.pointee == CChar(UInt8(ascii: "c"))
    }
}
