import PhotosCore
import Testing

/// `--size` among sizes that name no dimensions (NASA's when its original's are unknown,
/// Openverse's with null width and height): chosen by label.
struct ImageSizeChoiceTests {
    static let nasa = ["Original", "Large", "Medium", "Small", "Thumb"].map {
        PhotoSize(label: $0, width: nil, height: nil, url: "https://images-assets.nasa.gov/image/x/x~\($0.lowercased()).jpg")
    }

    /// Each choice takes the size its label names; `original` the largest. `--size small`
    /// fetched the original (tens of megabytes) before.
    @Test func eachChoiceTakesTheSizeItsLabelNames() {
        #expect(ImageSizeChoice.original.choose(from: Self.nasa)?.label == "Original")
        #expect(ImageSizeChoice.large.choose(from: Self.nasa)?.label == "Large")
        #expect(ImageSizeChoice.medium.choose(from: Self.nasa)?.label == "Medium")
        #expect(ImageSizeChoice.small.choose(from: Self.nasa)?.label == "Small")
    }

    /// Without the label asked for, the nearest larger, else the nearest smaller; labels that
    /// say nothing of a size come last.
    @Test func withoutItsLabelTheNearestLargerThenSmaller() {
        let some = Self.nasa.filter { $0.label != "Medium" } + [PhotoSize(label: "Alternate", width: nil, height: nil, url: "https://a.example/x.jpg")]
        #expect(ImageSizeChoice.medium.choose(from: some)?.label == "Large")
        let small = Self.nasa.filter { ["Thumb", "Small"].contains($0.label) }
        #expect(ImageSizeChoice.large.choose(from: small)?.label == "Small")
        let unknown = [PhotoSize(label: "Alternate", width: nil, height: nil, url: "https://a.example/x.jpg")] + small
        #expect(ImageSizeChoice.small.choose(from: unknown)?.label == "Small")
    }
}
