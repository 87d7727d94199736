import Foundation

/// Serving the routes of `Fixtures/<provider>/emulation.json` (see ``EmulationManifest``), and the
/// broken answers every provider is tested against.
extension FixtureProviderEmulation {
    /// Answers a request under `/__malformed/` (a JSON body cut short) or `/__html/` (a web page
    /// where JSON was expected, as a captive portal sends), whatever follows in the path: point a
    /// provider's endpoint there to see how it takes a body it cannot read.
    func brokenBody(_ request: FixtureRequest) -> FixtureResponse? {
        if request.path.hasPrefix("/__malformed/") {
            return .bytes(Array(#"{"results": [{"id": "1", "title": "cut sh"#.utf8), contentType: "application/json")
        }
        if request.path.hasPrefix("/__html/") {
            let page = "<!doctype html><html><head><title>Sign in</title></head><body>Sign in to the network</body></html>\n"
            return .bytes(Array(page.utf8), contentType: "text/html; charset=utf-8")
        }
        return nil
    }

    /// The first matching route of any provider's manifest, answered.
    func manifestRoute(_ request: FixtureRequest) -> FixtureResponse? {
        for manifest in manifests {
            for route in manifest.routes {
                guard let captures = route.captures(request) else { continue }
                if let response = answer(route, captures: captures, manifest: manifest, request: request) {
                    return response
                }
            }
        }
        return nil
    }

    private func answer(
        _ route: EmulationManifest.Route, captures: [String], manifest: EmulationManifest, request: FixtureRequest
    ) -> FixtureResponse? {
        let server = baseURL(request)
        var headers = route.headers
        if let image = route.image {
            var response = image == "thumb" ? thumbnail(number: Self.number(request.path)) : self.image(image)
            response.status = route.status
            response.headers += headers
            return response
        }
        let text: String
        if let file = route.file {
            guard let name = Self.expand(file, captures: captures, request: request),
                let bytes = fixture("\(manifest.name)/\(name)")
            else { return nil }
            text = String(decoding: bytes, as: UTF8.self)
        } else {
            text = route.body ?? ""
        }
        if !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
            headers.append(("content-type", "application/json; charset=utf-8"))
        }
        let body = manifest.rewriting(text, server: server)
        return FixtureResponse(status: route.status, headers: headers, body: Array(body.utf8))
    }

    /// `template` with `{1}`... and `{q:NAME}` filled in; nil when a value is not a plain name
    /// (letters, digits, `-`, `_`, `.`; never `..`), so a request cannot reach another file.
    static func expand(_ template: String, captures: [String], request: FixtureRequest) -> String? {
        var result = template
        for (index, capture) in captures.enumerated() {
            result = result.replacingOccurrences(of: "{\(index + 1)}", with: capture)
        }
        while let open = result.range(of: "{q:"), let close = result[open.upperBound...].firstIndex(of: "}") {
            let name = String(result[open.upperBound..<close])
            result.replaceSubrange(open.lowerBound...close, with: request.queryValue(name) ?? "")
        }
        let values = captures + [result]
        let plain = values.allSatisfy { value in
            !value.contains("..") && value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_./ ".contains($0)) }
        }
        return plain && !result.hasPrefix("/") ? result : nil
    }

    /// A stable number for a path, so each image URL gets its own synthesized thumbnail.
    static func number(_ path: String) -> Int {
        var hash: UInt32 = 2_166_136_261
        for byte in path.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return Int(hash % 100_000)
    }
}
