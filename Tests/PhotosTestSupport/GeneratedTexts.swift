/// Reproducible texts for tests that hold two ways of doing one thing equal: `count` texts, each
/// of fewer than `maxPieces` pieces drawn from `pieces` by a linear congruential generator
/// started at `seed` (the same texts on every run and machine).
public func generatedTexts(_ count: Int, of pieces: [String], maxPieces: Int, seed: UInt32) -> [String] {
    var state = seed
    func next(_ bound: Int) -> Int {
        state = state &* 1_103_515_245 &+ 12345
        return Int(state >> 16) % bound
    }
    return (0..<count).map { _ in
        var text = ""
        for _ in 0..<next(maxPieces) { text += pieces[next(pieces.count)] }
        return text
    }
}
