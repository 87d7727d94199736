import Foundation
import PhotosCore
import PhotosTerminal
import Testing

@testable import PhotosCLI

/// `photos show` on a terminal: every value whole, long ones wrapped under their column.
struct ShowDetailTableTests {
    static let url = "https://images.example.org/nasa-assets/image/as11-40-5874/as11-40-5874~orig-with-a-long-name.jpg"

    static func detail() -> PhotoDetail {
        let photo = Photo(
            id: PhotoID(provider: "nasa", raw: "as11-40-5874"), title: "Buzz Aldrin on the Moon", imageURL: url,
            pageURL: "https://images.example.org/details/as11-40-5874")
        return PhotoDetail(
            photo: photo,
            description: "Astronaut Edwin E. Aldrin Jr., lunar module pilot of the first lunar landing mission, poses for a photograph beside the deployed United States flag during an Apollo 11 extravehicular activity on the lunar surface.")
    }

    @Test func longValuesWrapUnderTheirColumnAndURLsStayWhole() {
        let text = Showing.render(Self.detail(), imagePath: nil, width: 80)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.contains { $0.hasSuffix(Self.url) }, "the URL whole on its line: \(text)")
        #expect(!text.contains("…"), "nothing cut: \(text)")
        // Every line but the URL's fits in 80 columns, and continuation lines start at the
        // value column.
        let valueColumn = "Description  ".count  // the longest label and two spaces
        for line in lines where !line.contains("https://") {
            #expect(TerminalText.displayWidth(String(line)) <= 80, "\(line)")
        }
        let description = lines.drop { !$0.hasPrefix("Description") }.prefix { $0.hasPrefix("Description") || $0.hasPrefix(String(repeating: " ", count: valueColumn)) }
        #expect(description.count >= 3, "the description wraps: \(text)")
        let words = description.map { $0.dropFirst(valueColumn) }.joined(separator: " ")
        #expect(words == Self.detail().description, "every word kept, in order")
    }

    /// An owner or tag that shows nothing once sanitised (joiners, fillers) is left out, in
    /// show's table and in browse's detail, rather than shown as a blank entry.
    @Test func ownersAndTagsThatShowNothingAreLeftOut() {
        var photo = Photo(id: PhotoID(provider: "flickr", raw: "1"), title: "t", owner: "\u{3164}\u{115F}")
        photo.tags = ["\u{200D}\u{200D}", "zwj", "\u{202E}"]
        let detail = PhotoDetail(photo: photo, tags: photo.tags)
        let text = Showing.render(detail, imagePath: nil, width: 80)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(!lines.contains { $0.hasPrefix("Owner") }, "\(text)")
        #expect(lines.contains { $0.hasPrefix("Tags") && $0.hasSuffix(" zwj") }, "\(text)")
        let browse = BrowseSession.detailLines(detail)
        #expect(!browse.contains { $0.0 == "Owner" } && browse.first { $0.0 == "Tags" }?.1 == "zwj", "\(browse)")
    }

    @Test func wrapKeepsEveryWordAndBreaksNone() {
        let text = "one two three \(Self.url) four"
        let lines = TerminalText.wrap(text, width: 12)
        #expect(lines == ["one two", "three", Self.url, "four"])
        #expect(TerminalText.wrap("short", width: 12) == ["short"])
        #expect(TerminalText.wrap("", width: 12) == [""])
        #expect(TerminalText.wrap("a\u{1B}[31mb c", width: 3).allSatisfy { !$0.contains("\u{1B}") })
    }

    /// A path is shown as it is, on one line: spaces kept (sanitising makes a run of them one,
    /// another path), never wrapped at them.
    @Test func aPathIsShownAsItIs() {
        let path = "/tmp/photos  cache/one photo with a long name, longer than the column is.jpg"
        let text = Showing.render(Self.detail(), imagePath: URL(fileURLWithPath: path), width: 50)
        #expect(text.contains("File         " + path + "\n"), "\(text)")
    }

    /// `photos providers` on a narrow terminal: every fact whole (a problem with a setting was
    /// cut to "no: PHOTOS_NASA_API is not an…"), each provider's name at the start of its line.
    @Test func providersOnANarrowTerminalCutNothing() throws {
        let environment = try AppEnvironment.load(environment: ["PHOTOS_CONFIG": "/dev/null", "PHOTOS_NASA_API": "notaurl", "HOME": "/tmp"])
        let report = ProviderReport(environment: environment)
        for width in [40, 60, 80, 99] {
            let text = report.table(width: width, verbose: false)
            #expect(!text.contains("…"), "\(width): \(text)")
            let joined = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            #expect(joined.contains("PHOTOS_NASA_API is not an http or https URL"), "\(width): \(text)")
            for name in ["flickr", "placeholder", "commons", "openverse", "nasa"] {
                #expect(text.contains("\n" + name + " ") || text.hasPrefix(name + " "), "\(width): \(name)")
            }
            let wide = text.split(separator: "\n").filter { TerminalText.displayWidth(String($0)) > width }
            #expect(wide.isEmpty, "\(width): \(wide)")
        }
    }
}
