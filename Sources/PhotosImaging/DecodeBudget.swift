import Foundation

/// Bounds the bytes of decoded pixels that concurrent decodes hold at once.
///
/// The grid and `browse` decode many thumbnails in parallel, one per core; a PNG cannot be
/// scaled while it is decoded, so a single tile may take up to `ImageDecoder.maximumPixels * 4`
/// bytes. Each decode reserves its output's bytes before allocating them and waits while the
/// budget is spent, so the pixels in memory stay under `capacity` however many cores or tiles
/// there are. An image larger than the whole budget waits until it can run alone. Reservations
/// do not nest: code holding one must not ask for another.
public final class DecodeBudget: @unchecked Sendable {
    /// 256 MiB: one 50-megapixel image (200 MB of RGBA) fits, and dozens of thumbnails at once.
    public static let shared = DecodeBudget(capacity: 256 << 20)

    public let capacity: Int
    private let condition = NSCondition()
    private var inUse = 0
    private var peak = 0

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The most bytes held at once since this budget was made.
    public var peakBytes: Int {
        condition.lock()
        defer { condition.unlock() }
        return peak
    }

    /// Runs `body` once `bytes` of the budget are free, holding them until it returns.
    public func withReservation<T>(of bytes: Int, _ body: () throws -> T) rethrows -> T {
        let amount = min(max(bytes, 0), capacity)
        condition.lock()
        while inUse + amount > capacity { condition.wait() }
        inUse += amount
        peak = max(peak, inUse)
        condition.unlock()
        defer {
            condition.lock()
            inUse -= amount
            condition.broadcast()
            condition.unlock()
        }
        return try body()
    }
}
