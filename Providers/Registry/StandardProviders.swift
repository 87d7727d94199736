import CommonsProvider
import FlickrProvider
import NASAProvider
import OpenverseProvider
import PhotosCore
import PlaceholderProvider

extension ProviderRegistry {
    /// Every provider photos ships with, in the order `--help` and `photos providers` show them.
    /// Adding a provider: its folder under Providers/, its Fixtures/<name>/, its name in
    /// Package.swift's `providers`, and one line here (with its import).
    public static let standard = ProviderRegistry([
        FlickrProvider.self,
        PlaceholderProvider.self,
        CommonsProvider.self,
        OpenverseProvider.self,
        NASAProvider.self,
    ])
}
