import ArgumentParser
import Foundation
import PhotosCore
import PhotosProviders
import PhotosTerminal

extension PhotosCommand {
    /// `photos providers`: every provider, what it needs, and whether it is ready.
    struct Providers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "providers",
            abstract: "Show every provider, what it needs, and whether it is ready to use.",
            discussion: """
                A provider is ready when every setting it needs is set (in the environment or \
                the config file). Ready providers of real photos are the ones photos asks when \
                no --provider is given; --provider all adds the sample data.

                Examples:
                  photos providers
                  photos providers --verbose              # settings and filters of each
                  photos providers --format json | jq '.[] | select(.configured)'
                """
        )

        enum Format: String, CaseInsensitiveArgument, CaseIterable {
            case table, json
        }

        @Option(help: ArgumentHelp("Output format: table or json.", valueName: "format"))
        var format: Format = .table

        @Flag(name: .shortAndLong, help: "Also list each provider's settings and filters.")
        var verbose = false

        func run() async throws {
            let format = format
            let verbose = verbose
            try await CommandRuntime.run { environment in
                let report = ProviderReport(environment: environment)
                switch format {
                case .json: try Output.write(try JSONOutput.encode(report.entries, pretty: true) + "\n")
                case .table: try Output.write(report.table(width: environment.reportWidth, verbose: verbose))
                }
            }
        }
    }
}

/// What `photos providers` shows about each registered provider.
struct ProviderReport {
    struct Entry: Encodable {
        var descriptor: ProviderDescriptor
        var configured: Bool
        var endpoint: String?
        /// Why a provider whose settings are all there still cannot be used (its endpoint).
        var problem: String? = nil

        enum Keys: String, CodingKey {
            case name, summary, needs, configured, endpoint, homepage, filters, paging
            case idSyntax = "id_syntax", maxPerPage = "max_per_page", sampleData = "sample_data", settings
        }

        struct FilterJSON: Encodable {
            var filter: ProviderFilter
            enum Keys: String, CodingKey { case name, summary, example, values, scope }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(filter.name, forKey: .name)
                try container.encode(filter.summary, forKey: .summary)
                try container.encode(filter.example, forKey: .example)
                try container.encode(filter.values, forKey: .values)
                // "any" listing, "search" only, or "makes_search" (the listing is then one).
                let scope = switch filter.scope {
                case .any: "any"
                case .searchOnly: "search"
                case .makesSearch: "makes_search"
                }
                try container.encode(scope, forKey: .scope)
            }
        }

        struct SettingJSON: Encodable {
            var setting: ProviderSetting
            enum Keys: String, CodingKey {
                case variable, summary, secret, required
                case configKey = "config_key", defaultValue = "default"
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(setting.variable, forKey: .variable)
                try container.encode(setting.configKey, forKey: .configKey)
                try container.encode(setting.summary, forKey: .summary)
                try container.encode(setting.isSecret, forKey: .secret)
                try container.encode(setting.isRequired, forKey: .required)
                try container.encode(setting.defaultValue, forKey: .defaultValue)
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(descriptor.name, forKey: .name)
            try container.encode(descriptor.summary, forKey: .summary)
            try container.encode(descriptor.requiredSettings.map(\.variable), forKey: .needs)
            try container.encode(configured, forKey: .configured)
            try container.encode(endpoint, forKey: .endpoint)
            try container.encode(descriptor.homepage, forKey: .homepage)
            try container.encode(descriptor.filters.map(FilterJSON.init), forKey: .filters)
            try container.encode(descriptor.paging.rawValue, forKey: .paging)
            try container.encode(descriptor.idSyntax, forKey: .idSyntax)
            try container.encode(descriptor.maxPerPage, forKey: .maxPerPage)
            try container.encode(descriptor.isSampleData, forKey: .sampleData)
            try container.encode(descriptor.settings.map(SettingJSON.init), forKey: .settings)
        }
    }

    let entries: [Entry]

    init(environment: AppEnvironment) {
        entries = environment.registry.descriptors.map { descriptor in
            Entry(
                descriptor: descriptor,
                configured: descriptor.isConfigured(environment.settings) && descriptor.endpointProblem(environment.settings) == nil,
                endpoint: descriptor.endpoint(environment.settings), problem: descriptor.endpointProblem(environment.settings))
        }
    }

    /// The providers as a table `width` columns wide (nil: every value whole).
    func table(width: Int?, verbose: Bool) -> String {
        let fitted = width != nil
        func ready(_ entry: Entry) -> String {
            let needs = entry.descriptor.requiredSettings.map(\.variable).joined(separator: ", ")
            return entry.configured ? "yes" : entry.problem.map { "no: \($0)" } ?? "no: set \(needs)"
        }
        var text: String
        if let width, width < 100 {
            // Too narrow for a table: each provider on a line of its own, whether it is ready
            // and its ids, then what it is, wrapped; nothing cut.
            let nameWidth = entries.map { TerminalText.displayWidth($0.descriptor.name) }.max() ?? 0
            text = ""
            for entry in entries {
                let facts = TerminalText.wrap("ready: " + ready(entry) + ", ids " + entry.descriptor.idSyntax, width: max(20, width - nameWidth - 3))
                text += TerminalText.pad(entry.descriptor.name, width: nameWidth) + "  "
                text += facts.joined(separator: "\n" + String(repeating: " ", count: nameWidth + 2)) + "\n"
                for summary in TerminalText.wrap(entry.descriptor.summary, width: max(20, width - 5)) { text += "    " + summary + "\n" }
            }
        } else {
            var table = Table(columns: [
                .init("PROVIDER", maxWidth: fitted ? 12 : nil), .init("READY", maxWidth: fitted ? 24 : nil, wraps: true),
                .init("IDS", maxWidth: fitted ? 22 : nil, wraps: true), .init("ABOUT", wraps: true),
            ])
            for entry in entries { table.append([entry.descriptor.name, ready(entry), entry.descriptor.idSyntax, entry.descriptor.summary]) }
            text = table.render(width: width ?? Int.max / 4)
        }
        guard verbose else {
            let hint = "Filters and settings of each: photos providers --verbose"
            return text + "\n" + (width.map { TerminalText.wrap(hint, width: $0 - 1) } ?? [hint]).joined(separator: "\n") + "\n"
        }
        for entry in entries {
            let descriptor = entry.descriptor
            text += "\n\(descriptor.name): \(descriptor.summary)\n"
            text += "  home page: \(descriptor.homepage)\n"
            text += "  endpoint: \(entry.endpoint ?? "-")\n"
            text += "  pages: up to \(descriptor.maxPerPage) photos a page, by \(descriptor.paging.rawValue)\n"
            text += "  ids: \(descriptor.idSyntax), e.g. \(descriptor.idExample)\n"
            for setting in descriptor.settings {
                let value = setting.isSecret ? "" : setting.defaultValue.map { " (default \($0))" } ?? ""
                text += "  setting: \(setting.variable) / [\(ProviderHelp.section(setting.configKey))] \(ProviderHelp.key(setting.configKey)): \(setting.summary)\(value)\n"
            }
            for filter in descriptor.filters {
                let values = filter.values.map { " (\($0.joined(separator: ", ")))" } ?? ""
                let scope = filter.scope == .searchOnly ? "; a search only (--query, or a filter that makes one)" : filter.scope == .makesSearch ? "; makes the listing a search" : ""
                text += "  --filter \(filter.name)=\(filter.example): \(filter.summary)\(values)\(scope)\n"
            }
        }
        return text
    }
}

/// Provider facts for the root command's `--help`, from the registry.
enum ProviderHelp {
    static var table: String {
        ProviderRegistry.standard.descriptors.map { descriptor in
            "  \(descriptor.name.padding(toLength: 12, withPad: " ", startingAt: 0))\(descriptor.summary)"
        }.joined(separator: "\n")
    }

    /// Every setting as `VARIABLE ([section] key)`.
    static var settings: String {
        (AppEnvironment.coreSettings + ProviderRegistry.standard.settings).map {
            // The one setting that is not what its name suggests to a reader of `save`.
            let scope = $0.configKey == "save.dir" ? ", save without --to, browse's s key" : ""
            return "\($0.variable) ([\(section($0.configKey))] \(key($0.configKey))\(scope))"
        }.joined(separator: ", ")
    }

    static func section(_ configKey: String) -> Substring { configKey.split(separator: ".").first ?? "" }
    static func key(_ configKey: String) -> Substring { configKey.split(separator: ".").dropFirst().first ?? "" }
}
