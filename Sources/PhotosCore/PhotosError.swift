/// Failures the CLI reports, each with its documented exit code (sysexits).
public enum PhotosError: Error, Sendable, Equatable {
    /// Wrong flag or argument (64).
    case usage(String)
    /// A provider answered with something we cannot read (65).
    case badData(provider: String, detail: String)
    /// A provider could not be reached or said it is unavailable (69).
    case unavailable(provider: String, detail: String)
    /// Offline and nothing cached (69).
    case offlineNothingCached(String)
    /// Bad or missing credentials (77).
    case authentication(provider: String, detail: String)
    /// The provider has no such photo (69: the data is unavailable).
    case notFound(PhotoID)
    /// The user pressed Ctrl-C (130).
    case interrupted

    public var exitCode: Int32 {
        switch self {
        case .usage: return 64
        case .badData: return 65
        case .unavailable, .offlineNothingCached, .notFound: return 69
        case .authentication: return 77
        case .interrupted: return 130
        }
    }
}

extension PhotosError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .usage(let message): return message
        case .badData(let provider, let detail): return "\(provider) sent data photos cannot read: \(detail)"
        case .unavailable(let provider, let detail): return "\(provider) is unavailable: \(detail)"
        case .offlineNothingCached(let what): return "offline and nothing cached for \(what); run it once without --offline"
        case .authentication(let provider, let detail):
            // "Flickr refused the API key" names its provider already: not "flickr: Flickr ...".
            let named = detail.lowercased().hasPrefix(provider.lowercased() + " ")
            return named ? detail : "\(provider): \(detail)"
        case .notFound(let id): return "no photo \(id) at \(id.provider)"
        case .interrupted: return "interrupted"
        }
    }
}
