import Foundation
import PhotosCore
import Synchronization
import Testing

@testable import PhotosCLI

#if canImport(Glibc)
import Glibc
#endif

/// What `photos save -` reads, and the bounded channel between an input and the downloads.
struct SaveInputTests {
    /// The one input a line names.
    private func input(_ line: String) throws -> SaveInput {
        let inputs = SaveInputs.parseInputs(line)
        try #require(inputs.count == 1, "\(line) names one input, not \(inputs.count)")
        return inputs[0]
    }

    /// An id is written `provider:raw` whatever the raw part holds (NASA's spaces, a UUID longer
    /// than a string kept inline, letters beyond ASCII), and reads back as the same id.
    @Test(arguments: [
        ("flickr", "53624890009"), ("nasa", "PIA 12345 détail"), ("openverse", "edd420e4-471c-4f3f-a2ed-bc48ab3879af"),
        ("placeholder", "1"), ("commons", "東京タワー"),
    ])
    func anIdIsWrittenProviderColonRaw(provider: String, raw: String) throws {
        let id = PhotoID(provider: provider, raw: raw)
        #expect(id.description == provider + ":" + raw)
        #expect(PhotoID(id.description) == id)
    }

    @Test func stdinLinesAreIdsPhotoObjectsOrFailures() throws {
        guard case .id(let id, nil, nil) = try input("  flickr:53624890009 ") else {
            Issue.record("an id")
            return
        }
        #expect(id.description == "flickr:53624890009")
        #expect(SaveInputs.parseInputs("   ").isEmpty, "blank lines are skipped")
        #expect(SaveInputs.parseInputs("# the dogs of Tuesday").isEmpty, "comments are skipped")
        // The table of photos list: its header is passed over, each row is its id.
        #expect(SaveInputs.parseInputs("ID                  TITLE                      OWNER          SIZE").isEmpty)
        #expect(SaveInputs.parseInputs("flickr:53624890009  Rex at Playa de la Concha  Andrea Ruiz    1024×768").map(\.label) == ["flickr:53624890009"])
        #expect(SaveInputs.parseInputs("placeholder:17\tthe one with the boat").map(\.label) == ["placeholder:17"])
        guard case .invalid = try input("dogs.jpg") else {
            Issue.record("not an id")
            return
        }
        guard case .invalid(_, let reason) = try input(#"{"page":1,"total":3}"#) else {
            Issue.record("an object that names no photo")
            return
        }
        #expect(reason.contains("--format jsonl"), "says what to pipe instead")
        let listed = #"{"id":"placeholder:3","title":"t","image_url":"https://h/600/abc"}"#
        guard case .id(let listedID, nil, let known?) = try input(listed) else {
            Issue.record("a list --format jsonl line is its id, with its image for when the provider has no detail")
            return
        }
        #expect(listedID.raw == "3" && known.imageURL == "https://h/600/abc" && known.sizes.isEmpty)
        guard case .id(_, nil, nil) = try input(#"{"id":"placeholder:3","image_url":"file:///etc/passwd"}"#) else {
            Issue.record("an image photos may not fetch is not kept")
            return
        }
        let shown = #"{"id":"flickr:1","title":"t","taken_at":"2024-01-01T07:00:00Z","sizes":[{"label":"Original","width":4000,"height":3000,"url":"https://h/o.jpg"},{"label":"x","url":"file:///etc/passwd"}]}"#
        guard case .id(_, let described?, _) = try input(shown) else {
            Issue.record("a show --format json object describes its sizes")
            return
        }
        #expect(described.sizes.map(\.url) == ["https://h/o.jpg"], "only http(s) sizes")
        #expect(described.takenAt == Date(timeIntervalSince1970: 1_704_092_400))
    }

    @Test func theDocumentOfListFormatJSONNamesItsPhotosInOrder() {
        let document = #"{"has_more":false,"page":1,"per_page":3,"photos":[{"id":"placeholder:3"},{"title":"no id"},{"id":"flickr:9"}],"total":3}"#
        let inputs = SaveInputs.parseInputs(document)
        #expect(inputs.map(\.label) == ["placeholder:3", String(document.prefix(60)), "flickr:9"])
        if case .invalid = inputs[1] {} else { Issue.record("a photo without an id is reported, not skipped") }
    }

    @Test func prettyPrintedObjectsAreJoined() {
        var joiner = JSONLineJoiner()
        let lines = ["flickr:1", "{", #"  "id" : "flickr:2","#, #"  "title" : "a } in a string","#, "  \"tags\" : [ ]", "}", "flickr:3"]
        let joined = lines.flatMap { joiner.add($0) }
        #expect(joined.count == 3)
        #expect(joined[0] == "flickr:1" && joined[2] == "flickr:3")
        #expect(joined[1].hasPrefix("{") && joined[1].hasSuffix("}"))
        #expect(SaveInputs.parseInputs(joined[1]).map(\.label) == ["flickr:2"], "the joined object is read")
        #expect(joiner.add("{").isEmpty)
        #expect(joiner.finish() == "{", "an unfinished object is handed over at the end")
    }

    /// A pretty-printed `list --format json` of thousands of photos is one object of tens of
    /// thousands of lines: each line is scanned once. Scanning the object again at every line took
    /// 82 s for 2000 photos (24 s for 1000) before a download started. Not a measure of speed: the
    /// bound is far above what one pass takes on a loaded machine, far below the old quadratic.
    @Test func anObjectOfTensOfThousandsOfLinesIsJoinedInOnePass() {
        var joiner = JSONLineJoiner()
        var lines = ["{", #"  "photos" : ["#]
        for index in 1...20_000 { lines += ["    {", #"      "id" : "placeholder:\#(index)""#, "    },"] }
        lines += [#"    {"id" : "placeholder:0"}"#, "  ]", "}"]
        let started = ContinuousClock.now
        let joined = lines.flatMap { joiner.add($0) }
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(joined.count == 1 && joiner.finish() == nil)
        #expect(joined.first?.utf8.count == lines.reduce(0) { $0 + $1.utf8.count + 1 } - 1, "every line, once")
    }

    @Test func aBrokenObjectEndsWhereTheNextInputStarts() {
        // An unterminated string would otherwise hold every later line inside the object.
        var joiner = JSONLineJoiner()
        let lines = ["placeholder:3", #"{"broken json"#, "placeholder:7", #"{"id":"placeholder:8"}"#, "{", #"  "id" : "placeholder:9"#, "placeholder:10"]
        let inputs = lines.flatMap { joiner.add($0) }.flatMap(SaveInputs.parseInputs) + (joiner.finish().map(SaveInputs.parseInputs) ?? [])
        #expect(inputs.map(\.label) == ["placeholder:3", #"{"broken json"#, "placeholder:7", "placeholder:8", #"{ "id" : "placeholder:9"#, "placeholder:10"], "each named on one line")
        #expect(inputs.filter { if case .invalid = $0 { return true } else { return false } }.count == 2)
    }

    /// A reader of a pipe that a thread writes `bytes` into, then closes; and the pipe's read end.
    static func reader(of bytes: [UInt8]) -> (LineReader, Int32) {
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        let (readEnd, writeEnd) = (descriptors[0], descriptors[1])
        let writer = Thread {
            bytes.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return }
                var offset = 0
                while offset < raw.count {
                    let written = write(writeEnd, base + offset, raw.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
            close(writeEnd)
        }
        writer.start()
        return (LineReader(descriptor: readEnd), readEnd)
    }

    @Test func theReaderHandsOverLinesInBatches() async throws {
        let text = (1...1200).map { "placeholder:\($0)" }.joined(separator: "\n") + "\r\nlast-without-newline"
        let bytes = Array(text.utf8)
        let (reader, readEnd) = Self.reader(of: bytes)
        var lines: [String] = []
        while let batch = try await reader.next(upTo: 500) {
            #expect(batch.count <= 500)
            lines += batch
        }
        close(readEnd)
        #expect(lines.count == 1201)
        #expect(lines[0] == "placeholder:1" && lines[1199] == "placeholder:1200" && lines[1200] == "last-without-newline")
    }

    /// A line far longer than the longest kept is cut to it, and the line after it comes
    /// whole. (Each read searched the whole line again for its end: a line of 10 MB took 75 s.)
    @Test func aVeryLongLineIsCutAndTheNextComesWhole() async throws {
        let bytes = [UInt8](repeating: UInt8(ascii: "c"), count: 20 << 20) + Array("\nplaceholder:1\n".utf8)
        let (reader, readEnd) = Self.reader(of: bytes)
        var lines: [String] = []
        while let batch = try await reader.next(upTo: 10) { lines += batch }
        close(readEnd)
        #expect(lines.count == 2)
        #expect(lines.first?.utf8.count == LineReader.maxLineBytes)
        #expect(lines.last == "placeholder:1")
    }

    @Test func theChannelHoldsAtMostItsCapacityAndEndsInOrder() async throws {
        let channel = BatchChannel<Int>(capacity: 1)
        let sent = Atomic<Int>(0)
        let producer = Task {
            for value in 1...5 {
                try await channel.send(value)
                sent.add(1, ordering: .relaxed)
            }
            channel.finish()
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(sent.load(ordering: .relaxed) <= 2, "the producer waits for the consumer")
        var received: [Int] = []
        while let value = try await channel.next() { received.append(value) }
        #expect(received == [1, 2, 3, 4, 5])
        try await producer.value
    }

    @Test func cancellationReleasesWhoeverWaits() async throws {
        let channel = BatchChannel<Int>(capacity: 1)
        try await channel.send(1)
        let producer = Task { try await channel.send(2) }  // the channel is full: it waits
        try await Task.sleep(for: .milliseconds(50))
        producer.cancel()
        await #expect(throws: CancellationError.self) { try await producer.value }

        let empty = BatchChannel<Int>(capacity: 1)
        let consumer = Task { try await empty.next() }  // nothing sent yet: it waits
        try await Task.sleep(for: .milliseconds(50))
        consumer.cancel()
        await #expect(throws: CancellationError.self) { _ = try await consumer.value }
        await #expect(throws: CancellationError.self, "a consumer that left takes no more") { try await empty.send(1) }
    }

    @Test func anErrorEndsTheChannelAfterTheQueuedBatches() async throws {
        let channel = BatchChannel<Int>(capacity: 2)
        try await channel.send(1)
        channel.finish(throwing: PhotosError.unavailable(provider: "p", detail: "down"))
        #expect(try await channel.next() == 1)
        await #expect(throws: PhotosError.self) { _ = try await channel.next() }
    }
}
