import Foundation

/// What every fuzz target shares: reading libFuzzer's input, running async code to completion,
/// and failing loudly when a property the code promises does not hold.

/// The bytes libFuzzer hands `LLVMFuzzerTestOneInput`, copied.
public func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// Runs `body` to completion from libFuzzer's synchronous callback and returns its result.
///
/// The task starts on the calling thread and stays there until it first suspends, so code that
/// never waits (a decoder fed from memory) costs no thread hop per input.
public func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let done = DispatchSemaphore(value: 0)
    let result = ResultBox<T>()
    Task.immediate {
        result.value = await body()
        done.signal()
    }
    done.wait()
    return result.value!
}

private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}

/// A finding that is not a crash by itself: a promise of the code under test that the input
/// broke. Traps, so libFuzzer saves the input as a crash reproducer.
public func violated(_ property: String, _ detail: @autoclosure () -> String = "") -> Never {
    let extra = detail()
    fatalError("fuzz property violated: \(property)\(extra.isEmpty ? "" : ": \(extra)")")
}

/// Reads structured values off the front of a fuzz input; past the end everything is zero or
/// empty, so every input is a valid sequence of values.
public struct FuzzReader {
    private let bytes: [UInt8]
    private var offset = 0

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public var isAtEnd: Bool { offset >= bytes.count }

    public mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    public mutating func uint64() -> UInt64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return value
    }

    public mutating func int64() -> Int64 { Int64(bitPattern: uint64()) }

    /// Any double, NaN and the infinities included.
    public mutating func double() -> Double { Double(bitPattern: uint64()) }

    /// A length-prefixed byte string (at most 255 bytes).
    public mutating func data() -> [UInt8] {
        let count = min(Int(byte()), bytes.count - min(offset, bytes.count))
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// A length-prefixed string; invalid UTF-8 is repaired, as a reader of text would.
    public mutating func string() -> String { String(decoding: data(), as: UTF8.self) }

    /// Whatever is left.
    public mutating func rest() -> [UInt8] {
        guard offset < bytes.count else { return [] }
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }
}
