import Foundation
import PhotosCore
import Testing

@testable import PhotosCLI

/// `photos save --name`: templates, the sanitiser that makes provider text into safe file
/// names, and deterministic names for collisions.
struct NameTemplateTests {
    static func photo(_ title: String, id: String = "53624890009", owner: String? = "Andrea Ruiz", taken: Date? = nil) -> Photo {
        Photo(id: PhotoID(provider: "flickr", raw: id), title: title, owner: owner, takenAt: taken)
    }

    static func render(_ template: String, _ photo: Photo, url: String = "https://live.staticflickr.com/1/2_3_o.jpg") throws -> [String] {
        try NameTemplate(template).render(NameFields(photo: photo, imageURL: url), reserve: 5)
    }

    @Test func theDefaultTemplateIsProviderFolderAndIdFileName() throws {
        #expect(try Self.render(NameTemplate.defaultTemplate, Self.photo("x")) == ["flickr", "flickr_53624890009.jpg"])
        #expect(try Self.render("{raw_id}.{ext}", Self.photo("x"), url: "https://h/a/b.JPEG?x=1") == ["53624890009.jpg"])
        #expect(try Self.render("{raw_id}.{ext}", Self.photo("x"), url: "https://h/a/b.webp") == ["53624890009.webp"])
        #expect(try Self.render("{raw_id}.{ext}", Self.photo("x"), url: "https://h/600/92c952") == ["53624890009.jpg"], "no extension: jpg")
    }

    @Test func everyFieldHasAValueOrAFallback() throws {
        let taken = Date(timeIntervalSince1970: 1_704_092_400)  // 2024-01-01 07:00 UTC
        #expect(try Self.render("{owner}/{date} {title}.{ext}", Self.photo("Rex at the beach", taken: taken))
            == ["Andrea Ruiz", "2024-01-01 Rex at the beach.jpg"])
        #expect(try Self.render("{owner}/{date} {title}.{ext}", Self.photo("  ", owner: nil)) == ["unknown", "undated untitled.jpg"])
        #expect(try Self.render("{provider}-{raw_id}", Self.photo("")) == ["flickr-53624890009"])
    }

    @Test func hostileTitlesBecomeOneHarmlessComponent() throws {
        let hostile = [
            "../../../../etc/passwd", "/etc/shadow", "..", ".", "...", "a/../../b", "C:\\Windows\\system32", ".bashrc",
            "evil\u{202E}gpj.exe", "bell\u{07}\u{1B}[31mred\u{9B}", "line\nbreak\r\ttab", "zero\u{200B}width\u{2060}joiner",
            "CON", "nul.txt", "com1", "trailing dots...", "x.part", "\u{FEFF}", "tags\u{E0041}\u{E0042}",
        ]
        for title in hostile {
            let components = try Self.render("{title}.{ext}", Self.photo(title))
            #expect(components.count == 1, "\(title.debugDescription) stays one component")
            let name = try #require(components.first)
            #expect(!name.contains("/") && !name.contains("\\") && name != "." && name != ".." && !name.hasPrefix("."))
            #expect(!name.unicodeScalars.contains { FileNameSanitizer.isInvisible($0) }, "\(name.debugDescription) has no invisible character")
            #expect(!FileNameSanitizer.isReservedDeviceName(name), "\(name) is not a Windows device name")
            #expect(!name.lowercased().hasSuffix(".part"))
            #expect(name.hasSuffix(".jpg"))
        }
        #expect(try Self.render("{title}.{ext}", Self.photo("../../etc/passwd")) == ["_.._etc_passwd.jpg"])
        #expect(try Self.render("{title}.{ext}", Self.photo("line\nbreak\r\ttab")) == ["line break tab.jpg"])
        #expect(try Self.render("{title}.{ext}", Self.photo("evil\u{202E}gpj.exe")) == ["evilgpj.exe.jpg"])
        #expect(try Self.render("{title}", Self.photo("CON")) == ["_CON"])
        #expect(try Self.render("{title}", Self.photo("x.part")) == ["x.part_"])
        #expect(try Self.render("{title}.{ext}", Self.photo("\u{FEFF}")) == ["untitled.jpg"])
        #expect(try Self.render("{title}.{ext}", Self.photo("-rf *")) == ["_rf _.jpg"], "no file name reads as an option")
        #expect(try Self.render("{owner}/{raw_id}.{ext}", Self.photo("t", owner: "~")) == ["_", "53624890009.jpg"], "no folder named ~")
        #expect(try Self.render("~/{raw_id}.{ext}", Self.photo("t")) == ["_", "53624890009.jpg"])
        // Letters that show as nothing (Hangul fillers): an owner of them alone is no owner, and
        // not a folder that looks blank.
        #expect(try Self.render("{owner}/{raw_id}.{ext}", Self.photo("t", owner: "\u{3164}\u{115F}")) == ["unknown", "53624890009.jpg"])
        #expect(try Self.render("{title}.{ext}", Self.photo("a\u{3164}b\u{FFA0}")) == ["ab.jpg"])
    }

    @Test func longNamesAreCutBetweenCharactersAndKeepTheirExtension() throws {
        for character in ["a", "é", "日", "👩‍👩‍👧", "e\u{301}"] {
            let title = String(repeating: character, count: 400)
            let name = try #require(try Self.render("{title}.{ext}", Self.photo(title)).first)
            #expect(name.utf8.count <= FileNameSanitizer.maxComponentBytes - 5)
            #expect(name.hasSuffix(".jpg"))
            let stem = name.dropLast(4)
            #expect(!stem.isEmpty)
            #expect(String(decoding: Array(name.utf8), as: UTF8.self) == name, "valid UTF-8")
            #expect(stem.allSatisfy { $0 == Character(character) || character == "👩‍👩‍👧" }, "cut between characters of \(character)")
        }
        let folder = String(repeating: "x", count: 300)
        let components = try Self.render("{title}/{raw_id}.{ext}", Self.photo(folder))
        #expect(components[0].utf8.count == 255, "folders may use all 255 bytes")
    }

    /// A long title is what gets shorter: the date, the id and the words around them stay.
    @Test func aLongFieldIsShortenedAndTheRestOfTheTemplateKept() throws {
        let taken = Date(timeIntervalSince1970: 1_704_067_200)  // 2024-01-01
        for character in ["é", "a", "日"] {
            let photo = Self.photo(String(repeating: character, count: 300), owner: String(repeating: "o", count: 200), taken: taken)
            let components = try Self.render("{owner}/{title} {date} {raw_id}.{ext}", photo)
            let name = try #require(components.last)
            #expect(name.utf8.count <= FileNameSanitizer.maxComponentBytes - 5, "\(name.utf8.count)")
            #expect(name.hasSuffix(" 2024-01-01 53624890009.jpg"), "\(name)")
            #expect(name.hasPrefix(String(repeating: character, count: 16)), "the title is shortened, not dropped")
            #expect(components.first == String(repeating: "o", count: 200), "a folder that fits is left whole")
        }
        // Two long fields in one name: the longer is shortened first, neither below 16 bytes.
        let both = try #require(try Self.render("{title} by {owner}.{ext}", Self.photo(String(repeating: "t", count: 300), owner: String(repeating: "o", count: 120))).last)
        #expect(both.utf8.count <= FileNameSanitizer.maxComponentBytes - 5)
        #expect(both.hasSuffix(" by " + String(repeating: "o", count: 120) + ".jpg"), "\(both)")
    }

    @Test func templatesAreCheckedBeforeAnyWork() {
        for bad in ["", "/abs/{id}", "{nope}", "{title", "title}", "a//{id}", "{id}/", "../{id}", "./{id}", "{id}\u{7}"] {
            #expect(throws: PhotosError.self, "\(bad.debugDescription) is refused") { try NameTemplate(bad) }
        }
        #expect((try? NameTemplate("{{literal}} {id}"))?.components == [[.text("{literal} "), .field(.id)]])
    }

    /// Text too long for a name is refused, not cut with the fields after it: `{id}` was cut
    /// off, and every photo got the same name with -2, -3 after it.
    @Test func textLongerThanANameMayBeIsRefused() throws {
        let long = String(repeating: "a", count: 300)
        for bad in [long + "{id}.{ext}", "\(long)/{id}.{ext}", String(repeating: "é", count: 120) + "{id}.{ext}", String(repeating: "f", count: 256) + "/{id}"] {
            #expect(throws: PhotosError.self, "\(bad.prefix(20))... is refused") { try NameTemplate(bad) }
        }
        do {
            _ = try NameTemplate(long + "{id}.{ext}")
            Issue.record("accepted")
        } catch let error as PhotosError {
            #expect(error.description.contains("--name has 301 bytes of text in one file name and its fields at least 21: such a name holds 250 bytes here"), "\(error)")
        }
        // What fits, fields at their shortest included, is taken: the renderer's own limits
        // (a folder name of 255 bytes; 240 bytes of text and an extension).
        for fits in [String(repeating: "a", count: 200) + "{id}.{ext}", String(repeating: "f", count: 255) + "/{id}.{ext}", String(repeating: "t", count: 240) + ".{ext}"] {
            let name = try #require(try Self.render(fits, Self.photo("t")).last)
            #expect(name.utf8.count <= FileNameSanitizer.maxComponentBytes - 5, "\(name)")
        }
        let name = try #require(try Self.render(String(repeating: "a", count: 200) + "{id}.{ext}", Self.photo("t")).last)
        #expect(name.hasSuffix(".jpg") && name.contains("flickr_536"), "\(name)")
    }

    @Test func aTemplateWithoutAnExtensionIsToldApart() throws {
        for named in [NameTemplate.defaultTemplate, "{id}.jpg", "{title}.{ext}", "{ext}/{id}.{ext}", "{id}-{ext}", "pics/{id}.JPG"] {
            #expect(try NameTemplate(named).namesFileType, "\(named) names the file's type")
        }
        for unnamed in ["{id}", "{ext}/{id}", "{title}.", "{id}.{title}", "v1.0/{id}", "{id} (copy)"] {
            #expect(try !NameTemplate(unnamed).namesFileType, "\(unnamed) gives no extension")
        }
    }

    @Test func collisionsGetNumberedNamesInInputOrder() {
        var assigner = NameAssigner(metadata: false)
        let names = (0..<4).map { _ in assigner.assign(["dogs", "Rex.jpg"]) { _ in false } }
        #expect(names == ["dogs/Rex.jpg", "dogs/Rex-2.jpg", "dogs/Rex-3.jpg", "dogs/Rex-4.jpg"])
        #expect(assigner.assign(["dogs", "REX.jpg"]) { _ in false } == "dogs/REX-5.jpg", "names differing only in case collide")
        #expect(assigner.assign(["dogs", "Rex-2.jpg"]) { _ in false } == "dogs/Rex-2-2.jpg", "a taken numbered name counts too")
        #expect(assigner.assign(["cats", "Rex.jpg"]) { _ in false } == "cats/Rex.jpg", "another folder is another name")
        #expect(assigner.assign(["dogs", "Max.jpg"]) { $0 == "dogs/Max.jpg" } == "dogs/Max-2.jpg", "another photo's file is never taken")
    }

    @Test func sidecarsAreReservedWithMetadata() {
        var assigner = NameAssigner(metadata: true)
        #expect(assigner.assign(["a.jpg"]) { _ in false } == "a.jpg")
        #expect(assigner.assign(["a.jpg.json"]) { _ in false } == "a.jpg-2.json")
    }

    @Test func numberedLongNamesStayWithinTheLimit() {
        var assigner = NameAssigner(metadata: false)
        let long = String(repeating: "日", count: 83) + ".jpg"  // 249 + 4 bytes: at the limit
        let first = assigner.assign([FileNameSanitizer.component(long, maxBytes: 250)]) { _ in false }
        let second = assigner.assign([FileNameSanitizer.component(long, maxBytes: 250)]) { _ in false }
        #expect(first != second)
        #expect(second.utf8.count <= 250 && second.hasSuffix("-2.jpg"))
    }

    @Test func sizesAreChosenByLongestEdge() {
        let sizes = [
            PhotoSize(label: "Large Square", width: 150, height: 150, url: "https://h/q.jpg"),
            PhotoSize(label: "Small 320", width: 320, height: 240, url: "https://h/n.jpg"),
            PhotoSize(label: "Medium 640", width: 640, height: 480, url: "https://h/z.jpg"),
            PhotoSize(label: "Large", width: 1024, height: 768, url: "https://h/b.jpg"),
            PhotoSize(label: "Large 2048", width: 2048, height: 1536, url: "https://h/k.jpg"),
            PhotoSize(label: "Original", width: 1900, height: 1200, url: "https://h/o.jpg"),
        ]
        #expect(ImageSizeChoice.original.choose(from: sizes)?.url == "https://h/o.jpg", "the one called Original")
        #expect(ImageSizeChoice.large.choose(from: sizes)?.url == "https://h/b.jpg")
        #expect(ImageSizeChoice.medium.choose(from: sizes)?.url == "https://h/z.jpg")
        #expect(ImageSizeChoice.small.choose(from: sizes)?.url == "https://h/n.jpg")
        let small = Array(sizes.prefix(2))
        #expect(ImageSizeChoice.large.choose(from: small)?.url == "https://h/n.jpg", "the largest when none is large enough")
        #expect(ImageSizeChoice.original.choose(from: small)?.url == "https://h/n.jpg", "the largest when none is the original")
        let refused = [PhotoSize(label: "Original", width: 9000, height: 9000, url: "file:///etc/passwd")] + small
        #expect(ImageSizeChoice.original.choose(from: refused)?.url == "https://h/n.jpg", "only http(s) URLs")
        let photo = Photo(id: PhotoID(provider: "p", raw: "1"), title: "", imageURL: "https://h/own.jpg")
        #expect(ImageSizeChoice.original.url(for: photo) == "https://h/own.jpg", "no sizes: the photo's image")
        // Without dimensions, by their labels, in whichever order a provider lists them: NASA
        // largest first (its thumbnail was taken, being last), Openverse smallest first.
        let largestFirst = ["large", "medium", "small", "thumb"].map { PhotoSize(label: $0, width: nil, height: nil, url: "https://h/\($0).jpg") }
        #expect(ImageSizeChoice.original.choose(from: largestFirst)?.url == "https://h/large.jpg")
        #expect(ImageSizeChoice.original.choose(from: largestFirst.reversed())?.url == "https://h/large.jpg")
        let unlabelled = ["a", "b"].map { PhotoSize(label: $0, width: nil, height: nil, url: "https://h/\($0).jpg") }
        #expect(ImageSizeChoice.original.choose(from: unlabelled)?.url == "https://h/b.jpg", "labels that say nothing: the last")
    }

    @Test func asciiTextIsSanitisedExactlyAsAnyOtherText() {
        // The byte-wise path for ASCII against the Character-wise one, on every ASCII byte
        // alone and between letters, dots and spaces, and on a few mixtures.
        var samples = ["", " ", "..", " . ", "a", "CON", "con.txt", "a\r\nb", "\t x \t", "..hidden. ", "a/b\\c:d*e?f\"g<h>i|j"]
        for byte in UInt8(0)..<0x80 {
            let character = String(decoding: [byte], as: UTF8.self)
            samples += [character, "a" + character + "b", " " + character + " ", "." + character, character + character + "x"]
        }
        for sample in samples {
            #expect(FileNameSanitizer.field(sample, fallback: "_") == FileNameSanitizer.unicodeField(sample, fallback: "_"), "\(Array(sample.utf8))")
            #expect(FileNameSanitizer.literal(sample) == FileNameSanitizer.unicodeLiteral(sample), "\(Array(sample.utf8))")
            #expect(!FileNameSanitizer.isReservedDeviceName("ABCDEFGH" + sample), "a stem longer than any reserved name")
        }
        #expect(FileNameSanitizer.isReservedDeviceName(" con .jpg") && FileNameSanitizer.isReservedDeviceName("LPT1"))
        #expect(!FileNameSanitizer.isReservedDeviceName("CONSOLE.jpg") && !FileNameSanitizer.isReservedDeviceName("photo 1.jpg"))
    }
}
