import Foundation

/// Everything the CLI needs to know about a provider without asking it anything: its name,
/// settings, filters, ids and paging. The registry learns providers from this alone (config
/// keys, `--help`, `--provider all`, `photos providers`, `--filter`).
public struct ProviderDescriptor: Sendable {
    /// The name users type (`--provider NAME`) and the prefix of its photo ids.
    public var name: String
    /// One line for `--help` and `photos providers`.
    public var summary: String
    /// The service's home page, for `photos providers`.
    public var homepage: String
    /// Settings the provider reads, each an environment variable and a config key.
    public var settings: [ProviderSetting]
    /// Filters it understands in `--filter key=value`.
    public var filters: [ProviderFilter]
    /// The form of its ids, e.g. `flickr:<digits>`.
    public var idSyntax: String
    /// A real id, for examples and error messages, e.g. `flickr:53624890009`.
    public var idExample: String
    /// The largest page the provider serves in one listing.
    public var maxPerPage: Int
    /// How the provider's API pages (shown in `photos providers`).
    public var paging: Paging
    /// Sample data, not real photos: left out of the default set, used only when named or
    /// configured as the default.
    public var isSampleData: Bool

    public init(
        name: String, summary: String, homepage: String, settings: [ProviderSetting], filters: [ProviderFilter] = [],
        idSyntax: String, idExample: String, maxPerPage: Int, paging: Paging, isSampleData: Bool = false
    ) {
        self.name = name
        self.summary = summary
        self.homepage = homepage
        self.settings = settings
        self.filters = filters
        self.idSyntax = idSyntax
        self.idExample = idExample
        self.maxPerPage = maxPerPage
        self.paging = paging
        self.isSampleData = isSampleData
    }

    /// How an API reaches the next page.
    public enum Paging: String, Sendable, Codable {
        /// `page=N`: any page can be asked for directly.
        case pageNumbers = "page numbers"
        /// `offset=K`: any position can be asked for directly.
        case offsets
        /// A token from the previous answer: pages are reached in order.
        case continuationTokens = "continuation tokens"
    }

    /// The first of `keys` this provider applies only to a search, when a listing of `query`
    /// with those filters is none; nil when every one applies.
    public func filterNeedingSearch(_ keys: [String], query: String?) -> ProviderFilter? {
        let given = keys.compactMap { filter(named: $0) }
        let isSearch = !(query ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty || given.contains { $0.scope == .makesSearch }
        return isSearch ? nil : given.first { $0.scope == .searchOnly }
    }

    /// Why `filter` cannot be used without a search, and what to add.
    public func needsSearchMessage(_ filter: ProviderFilter) -> String {
        let makers = filters.filter { $0.scope == .makesSearch }.map { "--filter \($0.name)=\($0.example)" }
        let alternatives = (["--query"] + makers).joined(separator: ", or ")
        return "\(name) applies filter \(filter.name) only to a search: add \(alternatives) (without one it lists recent photos, which take no \(filter.name))"
    }

    /// Settings that must be set before the provider can be used (an API key).
    public var requiredSettings: [ProviderSetting] { settings.filter(\.isRequired) }

    /// The setting that names the API's base URL.
    public var endpointSetting: ProviderSetting? { settings.first { $0.role == .endpoint } }

    /// Whether every required setting has a value in `settings` (by variable name); spaces
    /// alone are none.
    public func isConfigured(_ settings: [String: String]) -> Bool {
        requiredSettings.allSatisfy { !(settings[$0.variable] ?? "").trimmingCharacters(in: .whitespaces).isEmpty }
    }

    /// What is wrong with the endpoint `settings` give, when the provider would refuse it
    /// (``URLPolicy``: no http or https URL, or one with a user name, a port out of range, a
    /// space); nil when it is fine, or is not set.
    public func endpointProblem(_ settings: [String: String]) -> String? {
        guard let setting = endpointSetting, let value = settings[setting.variable]?.trimmingCharacters(in: .whitespacesAndNewlines),
              !value.isEmpty, !URLPolicy.isAllowed(value)
        else { return nil }
        let detail = URLPolicy.refusalDetail(value)
        return detail.isEmpty ? "\(setting.variable) is not an http or https URL" : "\(setting.variable) must be an http or https URL\(detail)"
    }

    /// The effective endpoint for `settings`, or its default.
    public func endpoint(_ settings: [String: String]) -> String? {
        guard let setting = endpointSetting else { return nil }
        return setting.value(in: settings)
    }

    /// The filter called `key` (or one of its aliases).
    public func filter(named key: String) -> ProviderFilter? {
        filters.first { $0.name == key || $0.aliases.contains(key) }
    }
}

/// One setting a provider reads: an environment variable that may also be set in the config file.
public struct ProviderSetting: Sendable, Hashable {
    /// What the setting is for, where the CLI needs to know.
    public enum Role: String, Sendable {
        /// The API's base URL.
        case endpoint
        /// A credential.
        case key
        /// Anything else (an image host, a default).
        case other
    }

    /// The environment variable, e.g. `FLICKR_API_KEY`.
    public var variable: String
    /// The config file key as `section.key`, e.g. `flickr.api_key`.
    public var configKey: String
    /// What it is, for `--help` and `photos config`.
    public var summary: String
    public var role: Role
    /// Never printed: shown only as set or not.
    public var isSecret: Bool
    /// The provider cannot be used without it.
    public var isRequired: Bool
    /// The value used when nothing sets it.
    public var defaultValue: String?

    public init(
        variable: String, configKey: String, summary: String, role: Role = .other, isSecret: Bool = false,
        isRequired: Bool = false, defaultValue: String? = nil
    ) {
        self.variable = variable
        self.configKey = configKey
        self.summary = summary
        self.role = role
        self.isSecret = isSecret
        self.isRequired = isRequired
        self.defaultValue = defaultValue
    }

    /// The provider's API endpoint, with its default.
    public static func endpoint(_ variable: String, configKey: String, default value: String, summary: String? = nil) -> Self {
        ProviderSetting(
            variable: variable, configKey: configKey, summary: summary ?? "API endpoint", role: .endpoint, defaultValue: value)
    }

    /// The value in `settings` (trimmed, non-empty), else the default.
    public func value(in settings: [String: String]) -> String? {
        if let value = settings[variable]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty { return value }
        return defaultValue
    }
}

/// A filter a provider understands: `--filter NAME=VALUE`.
public struct ProviderFilter: Sendable, Hashable {
    public var name: String
    /// What it does and which values it takes.
    public var summary: String
    /// A value to show in examples.
    public var example: String
    /// Other names accepted for it (kept for old command lines).
    public var aliases: [String]
    /// The values it accepts, when they are a fixed set; nil for free text.
    public var values: [String]?
    /// Where it applies: to every listing, or only to a search (Flickr's recent photos take
    /// no licence, order or safety level).
    public var scope: Scope
    /// A check beyond a fixed set of values (Flickr's licences: names, or its own numeric ids),
    /// run as the command line is read, so that a wrong value is said before anything else.
    public var check: (@Sendable (String) throws -> Void)?

    public enum Scope: Sendable, Hashable {
        /// Any listing.
        case any
        /// Only a search: a `--query`, or a filter that makes one.
        case searchOnly
        /// It makes a listing a search (Flickr's `tags` and `user`).
        case makesSearch
    }

    public init(
        _ name: String, _ summary: String, example: String, aliases: [String] = [], values: [String]? = nil, scope: Scope = .any,
        check: (@Sendable (String) throws -> Void)? = nil
    ) {
        self.name = name
        self.summary = summary
        self.example = example
        self.aliases = aliases
        self.values = values
        self.scope = scope
        self.check = check
    }

    /// Checks `value` against the fixed set, if any, and the filter's own check.
    /// - Throws: `PhotosError.usage` naming the accepted values.
    public func validate(_ value: String, provider: String) throws {
        try check?(value)
        guard let values, !values.contains(value) else { return }
        throw PhotosError.usage(
            "\(provider) filter \(name) takes one of \(values.joined(separator: ", ")); got '\(value)'")
    }
}

extension ProviderFilter {
    /// Filters are the same when all but their check are (a check is a function of the rest).
    public static func == (lhs: ProviderFilter, rhs: ProviderFilter) -> Bool {
        lhs.name == rhs.name && lhs.summary == rhs.summary && lhs.example == rhs.example && lhs.aliases == rhs.aliases
            && lhs.values == rhs.values && lhs.scope == rhs.scope
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(summary)
        hasher.combine(example)
        hasher.combine(aliases)
        hasher.combine(values)
        hasher.combine(scope)
    }
}
