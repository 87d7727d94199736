/// SHA-256 (FIPS 180-4), used to name cached files and keys after their URL.
///
/// It runs for every image a listing names, before its download can start: blocks are read
/// straight from the bytes, the state and schedule live on the stack, and nothing is allocated
/// but the result.
enum SHA256 {
    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    /// The eight words of the state.
    private struct State {
        var a: UInt32 = 0x6a09e667, b: UInt32 = 0xbb67ae85, c: UInt32 = 0x3c6ef372, d: UInt32 = 0xa54ff53a
        var e: UInt32 = 0x510e527f, f: UInt32 = 0x9b05688c, g: UInt32 = 0x1f83d9ab, h: UInt32 = 0x5be0cd19

        var words: [UInt32] { [a, b, c, d, e, f, g, h] }
    }

    static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        let state = digest(bytes)
        var result: [UInt8] = []
        result.reserveCapacity(32)
        for word in state.words {
            for shift in stride(from: 24, through: 0, by: -8) { result.append(UInt8(truncatingIfNeeded: word >> UInt32(shift))) }
        }
        return result
    }

    static func hex(_ text: String) -> String {
        var text = text
        let state = text.withUTF8 { digest(UnsafeRawBufferPointer($0)) }
        let words = state.words
        let digits: StaticString = "0123456789abcdef"
        return digits.withUTF8Buffer { digits in
            String(unsafeUninitializedCapacity: 64) { buffer in
                for (index, word) in words.enumerated() {
                    for nibble in 0..<8 {
                        buffer[8 * index + nibble] = digits[Int((word >> UInt32(28 - 4 * nibble)) & 0xF)]
                    }
                }
                return 64
            }
        }
    }

    private static func digest(_ bytes: some Collection<UInt8>) -> State {
        if let state = bytes.withContiguousStorageIfAvailable({ digest(UnsafeRawBufferPointer($0)) }) { return state }
        return Array(bytes).withUnsafeBytes { digest($0) }
    }

    private static func digest(_ message: UnsafeRawBufferPointer) -> State {
        var state = State()
        k.withUnsafeBufferPointer { k in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
                let whole = message.count / 64 * 64
                var offset = 0
                while offset < whole {
                    compress(&state, UnsafeRawBufferPointer(rebasing: message[offset..<offset + 64]), k, w)
                    offset += 64
                }
                // The tail, 0x80, zeros and the length in bits: one block or two.
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { tail in
                    tail.initialize(repeating: 0)
                    let rest = message.count - whole
                    for index in 0..<rest { tail[index] = message[whole + index] }
                    tail[rest] = 0x80
                    let length = rest < 56 ? 64 : 128
                    let bits = UInt64(message.count) &* 8
                    for index in 0..<8 { tail[length - 1 - index] = UInt8(truncatingIfNeeded: bits >> UInt64(8 * index)) }
                    let raw = UnsafeRawBufferPointer(tail)
                    compress(&state, UnsafeRawBufferPointer(rebasing: raw[0..<64]), k, w)
                    if length == 128 { compress(&state, UnsafeRawBufferPointer(rebasing: raw[64..<128]), k, w) }
                }
            }
        }
        return state
    }

    @inline(__always)
    private static func compress(
        _ state: inout State, _ block: UnsafeRawBufferPointer, _ k: UnsafeBufferPointer<UInt32>, _ w: UnsafeMutableBufferPointer<UInt32>
    ) {
        for i in 0..<16 {
            let j = i * 4
            w[i] = UInt32(block[j]) << 24 | UInt32(block[j + 1]) << 16 | UInt32(block[j + 2]) << 8 | UInt32(block[j + 3])
        }
        for i in 16..<64 {
            let s0 = w[i - 15].rotatedRight(7) ^ w[i - 15].rotatedRight(18) ^ (w[i - 15] >> 3)
            let s1 = w[i - 2].rotatedRight(17) ^ w[i - 2].rotatedRight(19) ^ (w[i - 2] >> 10)
            w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, h) = (state.a, state.b, state.c, state.d, state.e, state.f, state.g, state.h)
        for i in 0..<64 {
            let s1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
            let choice = (e & f) ^ (~e & g)
            let t1 = h &+ s1 &+ choice &+ k[i] &+ w[i]
            let s0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ s0 &+ majority)
        }
        state.a &+= a; state.b &+= b; state.c &+= c; state.d &+= d
        state.e &+= e; state.f &+= f; state.g &+= g; state.h &+= h
    }
}

extension UInt32 {
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 { (self >> count) | (self << (32 - count)) }
}
