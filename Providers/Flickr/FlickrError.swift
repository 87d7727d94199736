import Foundation
import PhotosCore

/// Maps Flickr's failures to `PhotosError`. Messages never carry the request URL or the API key.
enum FlickrError {
    static let provider = "flickr"
    static let apiKeyHelp = "https://www.flickr.com/services/api/misc.api_keys.html"

    static var missingKey: PhotosError {
        .authentication(
            provider: provider,
            detail: "no Flickr API key; set FLICKR_API_KEY or api_key under [flickr] in the config file "
                + "(get a key at \(apiKeyHelp))"
        )
    }

    /// The codes of `flickr.photos.search` (and getRecent) that say its arguments are wrong: 1
    /// too many tags in an ALL query, 2 unknown user, 3 a search without parameters, 4 a pool
    /// not to be seen, 5 a deleted user, 11 and 12 machine tags, 17 contacts of another user,
    /// 18 illogical arguments (Flickr's API documentation).
    static let searchInputCodes: Set<Int> = [1, 2, 3, 4, 5, 11, 12, 17, 18]

    /// `{"stat":"fail","code":N,"message":...}` -> PhotosError.
    /// - Parameters:
    ///   - photo: the photo asked for by getInfo/getSizes, where code 1 means "not found".
    ///   - apiKey: scrubbed from the provider's message, should a server ever echo it.
    static func failure(code: Int?, message: String?, photo: PhotoID?, apiKey: String?) -> PhotosError {
        let text = scrub(message, apiKey: apiKey)
        switch (code, photo) {
        case (100, _):
            return .authentication(
                provider: provider,
                detail: "Flickr refused the API key (error 100: Invalid API Key). "
                    + "Check the key in FLICKR_API_KEY or api_key under [flickr] in the config file "
                    + "(photos config show says which one is used)"
            )
        case (1, let photo?):
            return .notFound(photo)
        case (105, _):
            return .unavailable(provider: provider, detail: "Flickr error 105: \(text ?? "Service currently unavailable")")
        case (let code?, nil) where searchInputCodes.contains(code):
            // The search's own arguments (an unknown user, too many tags): asking again cannot
            // help, the command must change.
            return .usage("Flickr refused the search (error \(code): \(text ?? "no message")); check --query and --filter")
        case (let code?, _):
            return .unavailable(provider: provider, detail: "Flickr error \(code): \(text ?? "no message")")
        case (nil, _):
            return .unavailable(provider: provider, detail: "Flickr reported a failure: \(text ?? "no message")")
        }
    }

    /// A non-2xx status without a Flickr error body.
    static func httpStatus(_ status: Int, advice: String = "") -> PhotosError {
        switch status {
        case 429:
            return .unavailable(provider: provider, detail: "Flickr is rate limiting requests (HTTP 429); try again later")
        case 500...599:
            return .unavailable(provider: provider, detail: "Flickr answered HTTP \(status)\(advice)")
        default:
            return .unavailable(provider: provider, detail: "Flickr answered HTTP \(status)")
        }
    }

    static func badData(_ what: String) -> PhotosError {
        .badData(provider: provider, detail: what)
    }

    /// The provider's message, without the API key, on one line, at most 300 characters.
    static func scrub(_ message: String?, apiKey: String?) -> String? {
        guard var text = message?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        if let apiKey, !apiKey.isEmpty {
            text = text.replacingOccurrences(of: apiKey, with: "REDACTED")
        }
        if text.count > 300 { text = String(text.prefix(300)) + "…" }
        return text
    }
}
