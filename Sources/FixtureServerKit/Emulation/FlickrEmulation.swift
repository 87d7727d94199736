import Foundation

/// Flickr REST at `/services/rest/` and its image host at `/flickr-static/` (see
/// ``FixtureProviderEmulation``).
extension FixtureProviderEmulation {
    // MARK: Flickr REST

    func flickr(_ request: FixtureRequest) -> FixtureResponse {
        guard request.method == "GET" || request.method == "HEAD" || request.method == "POST" else {
            return .error("method not allowed", status: 405, headers: [("allow", "GET, HEAD, POST")])
        }
        let format = request.queryValue("format") ?? "rest"
        guard format == "json" else {
            let xml = "<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<rsp stat=\"fail\">\n\t<err code=\"111\" "
                + "msg=\"Format not found\" />\n</rsp>\n"
            return .bytes(Array(xml.utf8), contentType: "text/xml; charset=utf-8")
        }
        let wrap = request.queryValue("nojsoncallback") != "1"
        let base = baseURL(request)

        func answer(_ text: String) -> FixtureResponse {
            let rewritten = rewriteFlickr(text, base: base)
            let body = wrap ? "jsonFlickrApi(\(rewritten))" : rewritten
            return FixtureResponse(
                status: 200,
                headers: [("content-type", wrap ? "text/javascript; charset=utf-8" : "application/json; charset=utf-8")],
                body: Array(body.utf8)
            )
        }
        func file(_ name: String) -> FixtureResponse {
            guard let bytes = fixture("flickr/\(name)") else {
                return .error("fixture flickr/\(name) is missing", status: 500)
            }
            return answer(String(decoding: bytes, as: UTF8.self))
        }

        guard request.queryValue("api_key") == Self.validFlickrAPIKey else {
            return file("error-100.json")
        }
        let method = request.queryValue("method") ?? ""
        let page = request.queryValue("page").flatMap { Int($0) }.map { max(1, $0) } ?? 1
        let perPage = request.queryValue("per_page").flatMap { Int($0) }.map { min(max(1, $0), 500) } ?? 100
        switch method {
        case "flickr.photos.search":
            let text = (request.queryValue("text") ?? "").trimmingCharacters(in: .whitespaces).lowercased()
            let tags = (request.queryValue("tags") ?? "").trimmingCharacters(in: .whitespaces).lowercased()
            if text.isEmpty, tags.isEmpty, (request.queryValue("user_id") ?? "").isEmpty {
                return answer(
                    #"{"stat":"fail","code":3,"message":"Parameterless searches have been disabled. Please use flickr.photos.getRecent instead."}"#
                )
            }
            if text == Self.flickrUnavailableText {
                return file("error-105.json")
            }
            if text == Self.flickrManyText {
                return answer(syntheticSearch(page: page, perPage: perPage))
            }
            if text == Self.flickrSearchText || (text.isEmpty && tags == Self.flickrSearchText) {
                if page <= 3 {
                    return file("search-dogs-page\(page).json")
                }
                return answer(#"{"photos":{"page":\#(page),"pages":3,"perpage":10,"total":28,"photo":[]},"stat":"ok"}"#)
            }
            return answer(#"{"photos":{"page":\#(page),"pages":0,"perpage":\#(perPage),"total":0,"photo":[]},"stat":"ok"}"#)
        case "flickr.photos.getRecent":
            if page == 1 {
                return file("recent-page1.json")
            }
            return answer(#"{"photos":{"page":\#(page),"pages":100,"perpage":10,"total":1000,"photo":[]},"stat":"ok"}"#)
        case "flickr.photos.getInfo", "flickr.photos.getSizes":
            let id = request.queryValue("photo_id") ?? ""
            let prefix = method == "flickr.photos.getInfo" ? "getInfo" : "getSizes"
            guard (1...20).contains(id.count), id.allSatisfy({ $0.isASCII && $0.isNumber }),
                fixture("flickr/\(prefix)-\(id).json") != nil
            else {
                return file("error-1.json")
            }
            return file("\(prefix)-\(id).json")
        default:
            return answer("{\"stat\":\"fail\",\"code\":112,\"message\":\(jsonQuoted("Method \"\(method)\" not found"))}")
        }
    }

    /// A page of the synthesized search for ``flickrManyText``: ``flickrManyTotal`` photos with
    /// every url_* extra photos asks for, numbered from 1 in `id` 5300000000 + N.
    func syntheticSearch(page: Int, perPage: Int) -> String {
        let total = Self.flickrManyTotal
        let pages = (total + perPage - 1) / perPage
        let first = (page - 1).multipliedReportingOverflow(by: perPage).overflow ? total : (page - 1) * perPage
        let numbers = first < total ? Array((first + 1)...min(total, first + perPage)) : []
        let photos = numbers.map { number -> String in
            let id = 5_300_000_000 + number
            let secret = String((number &* 2_654_435_761) & 0xFF_FFFF_FFFF | 0x10_0000_0000, radix: 16)
            let originalSecret = String((number &* 40503) & 0xFF_FFFF_FFFF | 0x10_0000_0000, radix: 16)
            let image = "https://live.staticflickr.com/65535/\(id)_\(secret)"
            func size(_ key: String, _ suffix: String, _ width: Int, _ height: Int) -> String {
                #""url_\#(key)":"\#(image)\#(suffix).jpg","width_\#(key)":\#(width),"height_\#(key)":\#(height)"#
            }
            let sizes = [
                size("q", "_q", 150, 150), size("m", "", 500, 375), size("n", "_n", 320, 240), size("z", "_z", 640, 480),
                size("l", "_b", 1024, 768), size("h", "_h", 1600, 1200), size("k", "_k", 2048, 1536),
                #""url_o":"https://live.staticflickr.com/65535/\#(id)_\#(originalSecret)_o.jpg","width_o":4000,"height_o":3000"#,
            ].joined(separator: ",")
            return #"{"id":"\#(id)","owner":"12037949754@N01","secret":"\#(secret)","server":"65535","farm":66,"#
                + #""title":"Synthetic photo \#(number)","ispublic":1,"isfriend":0,"isfamily":0,"license":"4","#
                + #""description":{"_content":"Photo \#(number) of the synthesized search"},"dateupload":"\#(1_700_000_000 + number)","#
                + #""datetaken":"2024-02-03 10:20:30","ownername":"Fixture Owner","views":"\#(number)","tags":"synthetic fixture","#
                + #""pathalias":"fixture","media":"photo",\#(sizes)}"#
        }
        return #"{"photos":{"page":\#(page),"pages":\#(pages),"perpage":\#(perPage),"total":\#(total),"photo":["#
            + photos.joined(separator: ",") + #"]},"stat":"ok"}"#
    }

    func rewriteFlickr(_ text: String, base: String) -> String {
        let own = base + "/flickr-static"
        return text
            .replacingOccurrences(of: "https://live.staticflickr.com", with: own)
            .replacingOccurrences(of: #"https:\/\/live.staticflickr.com"#, with: own.replacingOccurrences(of: "/", with: #"\/"#))
    }

    /// `/flickr-static/<server>/<id>_<secret>[_<suffix>].<jpg|png|gif>`.
    func flickrStatic(_ path: String) -> FixtureResponse {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count == 3, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }) else { return .notFound }
        let name = parts[2]
        guard let dot = name.lastIndex(of: "."), ["jpg", "png", "gif"].contains(name[name.index(after: dot)...]) else {
            return .notFound
        }
        let pieces = name[..<dot].split(separator: "_", omittingEmptySubsequences: false)
        guard (2...3).contains(pieces.count),
            let id = pieces.first, (1...20).contains(id.count), id.allSatisfy({ $0.isASCII && $0.isNumber }),
            !pieces[1].isEmpty, pieces[1].allSatisfy({ $0.isASCII && $0.isHexDigit })
        else { return .notFound }
        let suffix = pieces.count == 3 ? String(pieces[2]) : ""
        switch suffix {
        case "s", "q", "t", "sq":
            return thumbnail(number: Int(id.suffix(5)) ?? 0)
        case "", "m", "n", "w", "z", "c":
            return image("sample.jpg")
        case "b", "l", "h", "k", "o", "f", "3k", "4k", "5k", "6k":
            return image("large.jpg")
        default:
            return .notFound
        }
    }
}
