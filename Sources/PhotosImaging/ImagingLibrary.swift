import Foundation
internal import ImagingShim

/// A C library behind decoding and drawing. None is linked: each is loaded on first use (see
/// ImagingShim.h), so commands that draw no picture start without them, and a missing one
/// fails the pictures that need it with an `ImagingLibraryError` rather than the whole program.
public enum ImagingLibrary: CaseIterable, Sendable {
    /// libchafa (terminal output), with GLib.
    case chafa
    case turboJPEG
    case png
    case webP

    /// Loads the library and its functions, once per process; later calls return at once.
    /// - Throws: `ImagingLibraryError` when it is not installed or lacks a function photos calls.
    func load() throws(ImagingLibraryError) {
        guard let reason = photos_imaging_load(shimLibrary) else { return }
        throw error(reason: String(cString: reason))
    }

    /// The libraries that were needed so far this run and could not be loaded, with why.
    public static var loadFailures: [ImagingLibraryError] {
        allCases.compactMap { library in
            photos_imaging_load_failure(library.shimLibrary).map { library.error(reason: String(cString: $0)) }
        }
    }

    func error(reason: String) -> ImagingLibraryError {
        let file = String(cString: photos_imaging_library_name(shimLibrary))
        // dlerror starts with the file it could not open; the message names it already.
        let prefix = file + ": "
        let reason = reason.hasPrefix(prefix) ? String(reason.dropFirst(prefix.count)) : reason
        return ImagingLibraryError(file: file, reason: reason, package: package)
    }

    /// What provides the library: Debian's package, or Homebrew's formula on macOS.
    var package: String {
        #if os(macOS)
        switch self {
        case .chafa: return "chafa"
        case .turboJPEG: return "jpeg-turbo"
        case .png: return "libpng"
        case .webP: return "webp"
        }
        #else
        switch self {
        case .chafa: return "libchafa0"
        case .turboJPEG: return "libturbojpeg0"
        case .png: return "libpng16-16"
        case .webP: return "libwebp7"
        }
        #endif
    }

    private var shimLibrary: photos_imaging_library {
        switch self {
        case .chafa: return PHOTOS_IMAGING_CHAFA
        case .turboJPEG: return PHOTOS_IMAGING_TURBOJPEG
        case .png: return PHOTOS_IMAGING_PNG
        case .webP: return PHOTOS_IMAGING_WEBP
        }
    }
}

/// An imaging library could not be loaded: it is not installed, or is too old.
public struct ImagingLibraryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file photos asked the dynamic loader for, e.g. "libchafa.so.0".
    public let file: String
    /// The dynamic loader's reason.
    public let reason: String
    /// What to install for it.
    public let package: String

    public init(file: String, reason: String, package: String) {
        self.file = file
        self.reason = reason
        self.package = package
    }

    public var description: String { "cannot load \(file): \(reason) (install \(package))" }
}

// `show` and `list` describe errors through NSError's localizedDescription.
extension ImagingLibraryError: LocalizedError {
    public var errorDescription: String? { description }
}
