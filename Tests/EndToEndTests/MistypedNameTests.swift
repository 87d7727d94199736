import Foundation
import PhotosTestSupport
import Testing

/// A provider or command name mistyped is answered with the one meant, wherever it is typed.
@Suite struct MistypedNameTests {
    @Test func aMisspelledProviderIsAnsweredWithTheOneMeant() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        let cases: [([String], String)] = [
            (["list", "--provider", "flikr"], "unknown provider 'flikr'; did you mean 'flickr'?"),
            (["list", "--provider", "nasa,placeholer"], "did you mean 'placeholder'?"),
            (["show", "flikr:53624890009"], "unknown provider 'flikr' in 'flikr:53624890009'; did you mean 'flickr'?"),
            (["save", "comons:123", "--to", photos.home.path], "did you mean 'commons'?"),
            (["cache", "clear", "--provider", "nasaa"], "did you mean 'nasa'?"),
            // `all` is a name too, and goes alone.
            (["cache", "clear", "--provider", "all,flickr"], "'all' names every provider and goes alone"),
            (["help", "list", "show"], "photos list has no commands of its own, so none named 'show'"),
            // A web address pasted for a photo is said as one, not as the provider 'https'.
            (["show", "https://www.flickr.com/photos/someone/53624890009"],
             "'https://www.flickr.com/photos/someone/53624890009' is a web address, not a photo id; ids look like provider:id"),
            (["save", "file:///etc/passwd", "--to", photos.home.path], "'file:///etc/passwd' is a web address, not a photo id"),
        ]
        for (arguments, message) in cases {
            let run = try await photos.run(arguments)
            #expect(run.status == 64 && run.stderr.contains(message), "\(arguments): \(run.status) \(run.stderr)")
            #expect(run.stdout.isEmpty, "\(arguments)")
        }
        // Among ids read from standard input, each such line is said, and the rest saved.
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let lines = Array("https://example.com/a.jpg\nnope:1\n".utf8)
        #expect(write(ends[1], lines, lines.count) == lines.count)
        close(ends[1])
        let piped = try await photos.start(["save", "-", "--to", photos.home.path], standardInput: ends[0]).finish()
        close(ends[0])
        #expect(piped.status == 65, "\(piped.stderr)")
        #expect(piped.stderr.contains("https://example.com/a.jpg: a web address, not a photo id; ids look like provider:id (photos list prints them)"), "\(piped.stderr)")
        #expect(piped.stderr.contains("nope:1: unknown provider 'nope'"), "\(piped.stderr)")
        let far = try await photos.run(["list", "--provider", "xyz"])
        #expect(far.status == 64 && !far.stderr.contains("did you mean") && far.stderr.contains("choose from flickr,"), "\(far.stderr)")
        let help = try await photos.run(["help", "help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: photos help"), "\(help.stderr)")
    }

    /// A provider that cannot be reached at an endpoint the user set: the setting is named, as
    /// it is the likely mistake (a wrong port, a typo in the host).
    @Test func anUnreachableEndpointTheUserSetIsNamed() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        let environment = ["PHOTOS_PLACEHOLDER_API": "https://127.0.0.1:9"]
        for arguments in [["list", "--provider", "placeholder", "--no-thumbnails"], ["show", "placeholder:1"], ["list", "--provider", "placeholder", "--format", "json"]] {
            let run = try await photos.run(arguments, environment: environment)
            #expect(run.status == 69, "\(arguments): \(run.status) \(run.stderr)")
            #expect(run.stderr.contains("cannot connect to 127.0.0.1:9") && run.stderr.contains("PHOTOS_PLACEHOLDER_API is set to 'https://127.0.0.1:9'"), "\(arguments): \(run.stderr)")
        }
    }

    /// An option of one value given twice with different values is refused (the parser kept
    /// the last without a word); the same value twice, or a `--filter` of each, is fine.
    @Test func anOptionOfOneValueGivenTwiceIsRefused() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        let cases: [([String], String)] = [
            (["list", "--provider", "placeholder", "--provider", "flickr"], "--provider is given twice ('placeholder' and 'flickr'); name several providers in one: --provider placeholder,flickr"),
            (["save", "placeholder:1", "--to", "a", "--to=b"], "--to is given twice ('a' and 'b'); give it once"),
            (["list", "-q", "dogs", "--query", "cats"], "--query is given twice ('dogs' and 'cats')"),
        ]
        for (arguments, message) in cases {
            let run = try await photos.run(arguments)
            #expect(run.status == 64 && run.stderr.contains(message), "\(arguments): \(run.status) \(run.stderr)")
        }
        let same = try await photos.run(["list", "--provider", "placeholder", "--provider", "placeholder", "--offline"])
        #expect(same.status == 69 && !same.stderr.contains("twice"), "the same value twice is that value: \(same.stderr)")
    }

    /// A number option given something else says a whole number is wanted (the parser said only
    /// that the value is invalid).
    @Test func aValueThatIsNoNumberSaysANumberIsWanted() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        for (arguments, option) in [(["list", "--per-page", "abc"], "--per-page"), (["list", "--page", "1e3"], "--page"), (["save", "--limit", "x"], "--limit")] {
            let run = try await photos.run(arguments)
            #expect(run.status == 64 && run.stderr.contains("is invalid for '\(option) <n>': a whole number is wanted"), "\(arguments): \(run.stderr)")
        }
        // A whole number too large for one is said to be that, not to be no whole number.
        for (arguments, option) in [(["list", "--page", "99999999999999999999"], "--page"), (["save", "--limit", "18446744073709551616"], "--limit")] {
            let run = try await photos.run(arguments)
            #expect(run.status == 64 && run.stderr.contains("is invalid for '\(option) <n>': too large a number"), "\(arguments): \(run.stderr)")
            #expect(!run.stderr.contains("a whole number is wanted"), "\(arguments): \(run.stderr)")
        }
    }

    /// A value that starts with `-` is taken by the parser for an option, and the value said to
    /// be missing: the message says how to give it (`--name=-...`), and that form works.
    @Test func aValueThatStartsWithADashIsShownItsForm() async throws {
        try await withServer { _, photos in
            let folder = try TemporaryFolder("dash-value")
            let run = try await photos.run(["save", "placeholder:13", "--name", "-{raw_id}.{ext}", "--to", folder.url.path])
            #expect(run.status == 64, "\(run.stderr)")
            #expect(run.stderr.contains("Missing value for '--name <template>'"), "\(run.stderr)")
            #expect(run.stderr.contains("a value that starts with - is given as --name=-{raw_id}.{ext}"), "\(run.stderr)")
            let given = try await photos.run(["save", "placeholder:13", "--name=-{raw_id}.{ext}", "--to", folder.url.path])
            #expect(given.status == 0, "\(given.stderr)")
            // A missing value with no dash after it is said as the parser says it.
            let missing = try await photos.run(["list", "--query"])
            #expect(missing.status == 64 && missing.stderr.contains("Missing value for '--query") && !missing.stderr.contains("given as"), "\(missing.stderr)")
        }
    }
}
