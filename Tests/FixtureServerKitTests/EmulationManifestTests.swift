import Foundation
import Testing

@testable import FixtureServerKit

/// The route language of `Fixtures/<provider>/emulation.json`, which providers' fixtures rely on.
struct EmulationManifestTests {
    static func manifest(_ json: String) throws -> EmulationManifest {
        try EmulationManifest(name: "example", data: Data(json.utf8))
    }

    static func request(_ target: String, headers: [(String, String)] = []) -> FixtureRequest {
        FixtureRequest(method: "GET", target: target, headers: headers)
    }

    @Test func queryPatternsMatchValuesPresenceAndAbsence() throws {
        let manifest = try Self.manifest("""
            {"routes": [{"path": "/api/search", "query": {"q": "~dogs", "page": "1|!", "key": "*", "debug": "!"}, "file": "a.json"}]}
            """)
        let route = try #require(manifest.routes.first)
        #expect(route.captures(Self.request("/api/search?q=Hot%20Dogs&key=k")) != nil)
        #expect(route.captures(Self.request("/api/search?q=dogs&page=1&key=k")) != nil)
        #expect(route.captures(Self.request("/api/search?q=dogs&page=2&key=k")) == nil, "page 2 is not 1 or absent")
        #expect(route.captures(Self.request("/api/search?q=cats&key=k")) == nil, "q must contain dogs")
        #expect(route.captures(Self.request("/api/search?q=dogs")) == nil, "key must be present")
        #expect(route.captures(Self.request("/api/search?q=dogs&key=k&debug=1")) == nil, "debug must be absent")
    }

    @Test func pathStarsAreCapturedAndTrailingSlashesCount() throws {
        let manifest = try Self.manifest("""
            {"routes": [{"path": "/v1/images/*/", "file": "image-{1}.json"}]}
            """)
        let route = try #require(manifest.routes.first)
        #expect(route.captures(Self.request("/v1/images/abc-123/")) == ["abc-123"])
        #expect(route.captures(Self.request("/v1/images/abc-123")) == nil)
        #expect(route.captures(Self.request("/v1/images/a/b/")) == nil)
    }

    @Test func requestHeadersMatchLikeQueryValues() throws {
        let manifest = try Self.manifest("""
            {"routes": [{"prefix": "/w/", "request_headers": {"User-Agent": "!~http"}, "status": 403, "body": "{}"}]}
            """)
        let route = try #require(manifest.routes.first)
        #expect(route.captures(Self.request("/w/api.php")) != nil, "no User-Agent at all is refused")
        #expect(route.captures(Self.request("/w/api.php", headers: [("user-agent", "curl/7.88.1")])) != nil)
        #expect(route.captures(Self.request("/w/api.php", headers: [("user-agent", "photos/1 (+https://example.org)")])) == nil)
    }

    @Test func aRouteWithoutAnAnswerIsRefusedNamingTheFile() throws {
        #expect {
            try Self.manifest(#"{"routes": [{"path": "/x"}]}"#)
        } throws: { error in
            "\(error)".contains("example/emulation.json") && "\(error)".contains("route 0")
        }
    }
}
