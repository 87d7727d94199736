import Foundation
import Testing

@testable import PhotosCache

/// Cached files are named by the SHA-256 of their URL: the digests of FIPS 180-4's examples.
@Suite struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ])
    func digestsMatchTheStandardsExamples(text: String, digest: String) {
        #expect(SHA256.hex(text) == digest)
    }

    /// FIPS 180-4's algorithm as written in the standard, bit for bit, with none of the fast
    /// implementation's shortcuts (blocks read in place, a tail of one or two blocks).
    static func referenceDigest(_ bytes: [UInt8]) -> [UInt8] {
        let k: [UInt32] = [
            0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
            0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
            0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
            0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
            0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
            0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
            0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
        ]
        func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
        var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
        var message = bytes + [0x80]
        while message.count % 64 != 56 { message.append(0) }
        let bits = UInt64(bytes.count) * 8
        for shift in stride(from: 56, through: 0, by: -8) { message.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        for chunk in stride(from: 0, to: message.count, by: 64) {
            var w = (0..<16).map { i in (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(message[chunk + 4 * i + $1]) } }
            for i in 16..<64 {
                let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
                let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
                w.append(w[i - 16] &+ s0 &+ w[i - 7] &+ s1)
            }
            var v = h
            for i in 0..<64 {
                let t1 = v[7] &+ (rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25)) &+ ((v[4] & v[5]) ^ (~v[4] & v[6])) &+ k[i] &+ w[i]
                let t2 = (rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22)) &+ ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]))
                v = [t1 &+ t2, v[0], v[1], v[2], v[3] &+ t1, v[4], v[5], v[6]]
            }
            h = zip(h, v).map { $0 &+ $1 }
        }
        return h.flatMap { word in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> UInt32($0)) } }
    }

    /// Every length from 0 to 300 bytes: the tail padded into one block or two (55, 56, 63, 64
    /// and 119 bytes are the edges), whole blocks read in place, bytes of every value.
    @Test func digestsMatchTheStandardsAlgorithmAtEveryLength() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...300 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(SHA256.hash(bytes) == Self.referenceDigest(bytes), "\(length) bytes")
            let text = String(repeating: "é", count: length / 2) + String(repeating: "x", count: length % 2)
            let hex = Self.referenceDigest(Array(text.utf8)).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
            #expect(SHA256.hex(text) == hex, "\(length) bytes of text")
        }
    }

    @Test func imagesAreNamedByTheirURLsDigestWithTheirExtension() {
        let store = ImageStore(root: .init(fileURLWithPath: "/cache"))
        #expect(store.relativePath(for: "abc") == "images/ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(store.relativePath(for: "https://h/a/b.JPG?x=1").hasSuffix(".jpg"))
    }

    /// What the extension was when it was read by Characters from Foundation's path.
    static func referenceExtension(_ url: String) -> String {
        guard let path = URLComponents(string: url)?.path else { return "" }
        let last = path.split(separator: "/").last ?? ""
        guard let dot = last.lastIndex(of: ".") else { return "" }
        let ext = last[last.index(after: dot)...].lowercased()
        guard (1...5).contains(ext.count), ext.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return "" }
        return "." + ext
    }

    @Test func extensionsReadByBytesAsByCharacters() {
        let tails = ["a.jpg", "a.JPEG", "a.webp", "a.tiff2", "b.", ".x", "a.b.c", "x.JPG/", "dir.d/", "a.j%70g", "a.jp\u{301}g", "a.é", "a.1",
                     "noext", "", "/", "a.jpg?x=.png", "a.png#f.gif", "a.Ab1", "a.[x]", "a.^", "a.@"]
        for host in ["https://h/", "http://h/p/", "https://u@h/", "ftp://h/"] {
            for tail in tails {
                let url = host + tail
                #expect(ImageStore.fileExtension(of: url) == Self.referenceExtension(url), "\(url)")
            }
        }
    }
}
