import PhotosCache
import PhotosCore
import PhotosProviders

/// One setting of the config file: its key, the environment variable that overrides it, the
/// type its value must have, and its default.
struct ConfigSetting: Sendable {
    enum Kind: Sendable {
        /// A TOML string.
        case string
        /// A TOML integer in a range.
        case integer(ClosedRange<Int>)
        /// Provider names: a string ("flickr,commons", "all") or an array of strings.
        case providerList

        var typeName: String {
            switch self {
            case .string: return "a string"
            case .integer: return "an integer"
            case .providerList: return "a string or an array of strings"
            }
        }
    }

    /// `section.key`, e.g. `flickr.api_key`.
    var configKey: String
    /// The environment variable that wins over the file, if there is one.
    var variable: String?
    var summary: String
    var kind: Kind
    /// Shown only as set or not.
    var isSecret: Bool
    /// The value used when nothing sets it, when it is a plain value.
    var defaultValue: String?
    /// An example value for `photos config init`'s template, when there is no default.
    var example: String?

    var section: String { String(configKey.split(separator: ".").first ?? "") }
    var key: String { String(configKey.split(separator: ".").dropFirst().joined(separator: ".")) }
    /// `[flickr] api_key`: how people see the key in the file.
    var displayKey: String { "[\(section)] \(key)" }
}

/// Every setting the config file may hold: photos' own, the cache's, and every registered
/// provider's. Nothing here names a provider: they come from the registry.
struct ConfigSchema: Sendable {
    let settings: [ConfigSetting]

    init(registry: ProviderRegistry) {
        var settings: [ConfigSetting] = [
            // Read by AppEnvironment.defaultProviders; there is no environment variable for it.
            ConfigSetting(
                configKey: "defaults.provider", variable: nil,
                summary: "providers `photos list` asks without --provider: names, or \"all\" (default: every ready provider that serves real photos)",
                kind: .providerList, isSecret: false, defaultValue: nil, example: registry.names.first)
        ]
        settings += AppEnvironment.coreSettings.map { core in
            var setting = Self.setting(core)
            if let range = AppEnvironment.integerRanges[core.variable] { setting.kind = .integer(range) }
            return setting
        }
        settings += CacheConfiguration.numericSettings.map {
            ConfigSetting(
                configKey: $0.configKey, variable: $0.variable, summary: $0.summary, kind: .integer($0.range),
                isSecret: false, defaultValue: String($0.defaultValue), example: nil)
        }
        settings += registry.settings.map(Self.setting)
        // Grouped by table, tables in the order they first appear.
        var order: [String: Int] = [:]
        for setting in settings where order[setting.section] == nil { order[setting.section] = order.count }
        self.settings = settings.enumerated().sorted {
            (order[$0.element.section] ?? 0, $0.offset) < (order[$1.element.section] ?? 0, $1.offset)
        }.map(\.element)
    }

    private static func setting(_ setting: ProviderSetting) -> ConfigSetting {
        ConfigSetting(
            configKey: setting.configKey, variable: setting.variable, summary: setting.summary, kind: .string,
            isSecret: setting.isSecret, defaultValue: setting.defaultValue, example: nil)
    }

    func setting(_ configKey: String) -> ConfigSetting? {
        settings.first { $0.configKey == configKey }
    }

    /// Table names in the order their first setting appears.
    var sections: [String] {
        var seen = Set<String>()
        return settings.map(\.section).filter { seen.insert($0).inserted }
    }

    func keys(in section: String) -> [String] {
        settings.filter { $0.section == section }.map(\.key)
    }
}
