import Foundation
import FuzzSupport
import PhotosCore
import PhotosProviders

// One provider of ProviderRegistry.standard, named by PHOTOS_FUZZ_PROVIDER, decodes the fuzz
// input as the body of every response: its listing (a search and a feed page, plain and
// conditional) and its detail. No network: an in-memory HTTPFetching answers 200 with the input.
// Any error thrown is fine; a crash, a hang or runaway memory is a finding, and so is a photo
// that breaks what providers promise (ids of their own, image URLs photos may fetch).
//
// PHOTOS_FUZZ_PROVIDER=list prints the registered names, one a line, and exits.

/// Answers every request with 200 and the fuzz input as the body.
struct EchoHTTP: HTTPFetching {
    let body: Data

    func data(for request: HTTPRequest) async throws -> HTTPResponse {
        HTTPResponse(
            status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]), body: body,
            effectiveURL: request.url, httpVersion: .http2, bytes: body.count)
    }

    func download(_ request: HTTPRequest, to destination: URL) async throws -> HTTPResponse {
        throw TransportError.protocolError(host: "fuzz", detail: "providers decode in memory; downloads are not fuzzed")
    }
}

let registry = ProviderRegistry.standard

/// The provider under test and what it is asked.
struct Subject: Sendable {
    let type: any RegisteredProvider.Type
    let settings: [String: String]
    let queries: [ListQuery]
    let detailID: PhotoID

    init(_ type: any RegisteredProvider.Type) {
        self.type = type
        let descriptor = type.descriptor
        // Every required setting (an API key) set, every endpoint left at its default.
        var settings: [String: String] = [:]
        for setting in descriptor.settings where setting.isRequired { settings[setting.variable] = "0123456789abcdef" }
        self.settings = settings
        queries = [ListQuery(text: "dogs", page: 1, perPage: 30), ListQuery(page: 2, perPage: 30)]
        guard let id = PhotoID(descriptor.idExample) else {
            violated("the descriptor's idExample is a photo id", descriptor.idExample)
        }
        detailID = id
    }
}

nonisolated(unsafe) var subject: Subject?

@_cdecl("LLVMFuzzerInitialize")
public func initialize(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    let name = ProcessInfo.processInfo.environment["PHOTOS_FUZZ_PROVIDER"] ?? ""
    if name == "list" {
        print(registry.names.joined(separator: "\n"))
        exit(0)
    }
    guard let type = registry.providers.first(where: { $0.descriptor.name == name }) else {
        FileHandle.standardError.write(
            Data("set PHOTOS_FUZZ_PROVIDER to one of: \(registry.names.joined(separator: ", "))\n".utf8))
        exit(2)
    }
    subject = Subject(type)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let subject else { return 0 }
    let body = Data(fuzzBytes(data, size))
    runBlocking {
        let provider = subject.type.init(context: ProviderContext(http: EchoHTTP(body: body), settings: subject.settings))
        for query in subject.queries {
            if let page = try? await provider.list(query) { check(page, of: provider) }
            let validators = HTTPValidators(etag: "\"fuzz\"", lastModified: "Mon, 01 Jan 2024 00:00:00 GMT")
            if case .modified(let page, _)? = try? await provider.list(query, revalidating: validators) {
                check(page, of: provider)
            }
        }
        if let detail = try? await provider.detail(subject.detailID) {
            check(detail.photo, of: provider)
            guard detail.photo.id == subject.detailID else {
                violated("a detail describes the photo asked for", "\(detail.photo.id) for \(subject.detailID)")
            }
            for size in detail.sizes where !URLPolicy.isAllowed(size.url) {
                violated("detail sizes have URLs photos may fetch", size.url)
            }
        }
    }
    return 0
}

func check(_ page: PhotoPage, of provider: any PhotoProvider) {
    guard page.skippedRecords >= 0, page.extraRecords >= 0 else {
        violated("skipped and extra record counts are counts", "\(page.skippedRecords), \(page.extraRecords)")
    }
    for photo in page.photos { check(photo, of: provider) }
}

func check(_ photo: Photo, of provider: any PhotoProvider) {
    guard photo.id.provider == provider.name, provider.isValidID(photo.id.raw) else {
        violated("photos carry well-formed ids of their provider", photo.id.description)
    }
    for url in [photo.thumbnailURL, photo.imageURL].compactMap({ $0 }) where !URLPolicy.isAllowed(url) {
        violated("image URLs are ones photos may fetch", url)
    }
}
