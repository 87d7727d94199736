import PhotosTerminal
import Testing

@testable import PhotosCLI

/// The ID column of `list`'s table: an id as `show` takes it.
struct ListingIDCellTests {
    /// NASA's ids hold spaces, runs of them too: sanitising made a run one, an id `show` does
    /// not know.
    @Test func spacesInAnIdAreKept() {
        #expect(Listing.idCell("nasa:Apollo  11  Crew") == "nasa:Apollo  11  Crew")
        #expect(Listing.idCell("flickr:53624890009") == "flickr:53624890009")
    }

    /// One that cannot be printed as it is is quoted, its controls escaped: never raw.
    @Test func anUnprintableIdIsQuotedAndEscaped() {
        let cell = Listing.idCell("nasa:a\u{1B}[2Jb")
        #expect(cell == "'nasa:a\\u{1B}[2Jb'")
        #expect(!cell.unicodeScalars.contains { $0.value == 0x1B })
    }
}
