import Foundation
import ImagingShim
import Testing

@testable import PhotosImaging

/// The loader behind `ImagingLibrary`: libraries are opened on first use, and one that is missing
/// or too old becomes a message rather than a crash.
@Suite struct ImagingLibraryTests {
    /// `photos_imaging_open` on `file` for `symbols`: the handle, the functions and the reason.
    private func open(_ file: String, _ symbols: [String]) -> (
        handle: UnsafeMutableRawPointer?, functions: [UnsafeMutableRawPointer?], reason: String
    ) {
        let names = symbols.map { strdup($0) }
        defer { names.forEach { free($0) } }
        var pointers = names.map { $0.map { UnsafePointer<CChar>($0) } }
        var functions = [UnsafeMutableRawPointer?](repeating: nil, count: symbols.count)
        var reason = [CChar](repeating: 0, count: 512)
        let size = reason.count
        let handle = photos_imaging_open(file, &pointers, &functions, symbols.count, &reason, size)
        let text = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (handle, functions, text)
    }

    private var webPFile: String { String(cString: photos_imaging_library_name(PHOTOS_IMAGING_WEBP)) }

    @Test func aLibraryThatIsNotInstalledGivesTheLoadersReason() {
        let result = open("libphotos-no-such-library.so.0", ["photos_no_such_function"])
        #expect(result.handle == nil)
        #expect(result.functions == [nil])
        #expect(result.reason.contains("libphotos-no-such-library.so.0"), "\(result.reason)")
    }

    @Test func aLibraryWithoutAFunctionIsRefusedAndNamesIt() {
        let result = open(webPFile, ["WebPGetInfo", "photos_no_such_function"])
        #expect(result.handle == nil)
        #expect(result.reason.contains("photos_no_such_function"), "\(result.reason)")
    }

    @Test func everyFunctionAskedForIsResolved() {
        let result = open(webPFile, ["WebPGetInfo", "WebPDecode"])
        #expect(result.handle != nil, "\(result.reason)")
        #expect(result.functions.allSatisfy { $0 != nil })
    }

    @Test func everyImagingLibraryLoadsHere() throws {
        for library in ImagingLibrary.allCases {
            try library.load()
            try library.load()  // once per process; the second call only reports
        }
        #expect(ImagingLibrary.loadFailures.isEmpty)
    }

    @Test func theMessageNamesTheFileTheReasonAndWhatToInstall() {
        let file = String(cString: photos_imaging_library_name(PHOTOS_IMAGING_CHAFA))
        let error = ImagingLibrary.chafa.error(reason: "\(file): cannot open shared object file: No such file or directory")
        #expect(error.file == file)
        // dlerror's leading file name is not repeated.
        #expect(error.reason == "cannot open shared object file: No such file or directory")
        #if os(Linux)
        #expect(error.description == "cannot load libchafa.so.0: cannot open shared object file: No such file or directory (install libchafa0)")
        #endif
        // `show` describes a failed preview through Foundation's localizedDescription.
        #expect((error as any Error).localizedDescription == error.description)
    }
}
