import Foundation
import PhotosCore
import PhotosTerminal
import PhotosTransport

/// What `photos config show` prints: every setting's effective value and where it came from.
struct ConfigReport: Encodable {
    enum Source: Equatable {
        case environment(variable: String)
        case file(path: String, line: Int?)
        case `default`
    }

    struct Entry {
        var setting: ConfigSetting
        /// The effective value (nil: not set and no default).
        var value: String?
        var source: Source
    }

    /// The config file, and what chose it.
    var path: String
    var pathSource: String
    var fileExists: Bool
    var entries: [Entry]
    var curl: CurlLibraryInfo?
    /// The settings that name an API's URL (checked as commands check them).
    private let urlVariables: Set<String>
    private let variables: [String: String]
    /// Why `[defaults] provider` would be refused by `list` and `save`, if it would.
    private let defaultProvidersProblem: String?

    /// The settings that name a folder or a file, where photos reads `~` as the home folder.
    static let pathVariables: Set<String> = ["PHOTOS_CACHE_DIR", "PHOTOS_SAVE_DIR", "PHOTOS_CA_BUNDLE"]

    init(environment: AppEnvironment, curl: CurlLibraryInfo? = CurlLibraryInfo.current()) {
        let variables = environment.environment
        path = ConfigFile.location(environment: variables)
        if AppEnvironment.setValue(variables["PHOTOS_CONFIG"]) != nil {
            pathSource = "environment PHOTOS_CONFIG"
        } else if let value = variables["XDG_CONFIG_HOME"], value.hasPrefix("/") {
            pathSource = "$XDG_CONFIG_HOME"
        } else {
            pathSource = "default"
        }
        fileExists = ConfigFile.isSomething(at: path)
        let path = path
        // A folder or file is shown as the path used: `~` as the home folder.
        func used(_ value: String, _ setting: ConfigSetting) -> String {
            Self.pathVariables.contains(setting.variable ?? "") ? HomePath.expand(value, environment: variables) : value
        }
        entries = ConfigSchema(registry: environment.registry).settings.map { setting in
            if let variable = setting.variable, let value = AppEnvironment.setValue(variables[variable]) {
                return Entry(setting: setting, value: used(value, setting), source: .environment(variable: variable))
            }
            if let value = AppEnvironment.setValue(environment.config.values[setting.configKey]) {
                return Entry(setting: setting, value: used(value, setting), source: .file(path: path, line: environment.config.lines[setting.configKey]))
            }
            // The cache's folder by default is worked out (XDG, HOME): the one in use is said.
            let worked = setting.variable == "PHOTOS_CACHE_DIR" ? environment.cacheRoot.path : nil
            return Entry(setting: setting, value: setting.defaultValue ?? worked, source: .default)
        }
        self.curl = curl
        urlVariables = Set(environment.registry.settings.filter { $0.role == .endpoint }.map(\.variable))
        self.variables = variables
        var problem: String?
        if environment.defaultProviders != nil {
            do {
                _ = try ProviderSelection(environment: environment).resolve(nil, quiet: true)
            } catch {
                problem = "\(Diagnostics.describe(error)); photos list and save without --provider will refuse to run"
            }
        }
        defaultProvidersProblem = problem
    }

    /// Values the commands that read them would refuse: an integer setting that is not a whole
    /// number in its range.
    var problems: [String] {
        settingProblems + (defaultProvidersProblem.map { [$0] } ?? [])
    }

    private var settingProblems: [String] {
        entries.compactMap { entry in
            guard let value = entry.value, entry.source != .default else { return nil }
            let name = entry.setting.variable.map { "\($0) (\(entry.setting.displayKey))" } ?? entry.setting.displayKey
            if case .integer(let range) = entry.setting.kind {
                if let number = Int(value.trimmingWhitespace()), range.contains(number) { return nil }
                return "\(name) is \(TerminalText.quoted(value)), not a whole number from \(range.lowerBound) to \(range.upperBound); commands that use it will refuse to run"
            }
            if entry.setting.variable == "PHOTOS_CA_BUNDLE" {
                let path = HomePath.expand(value, environment: variables)
                guard FileManager.default.isReadableFile(atPath: path) else {
                    return "\(name) names \(TerminalText.quoted(path)), which cannot be read; commands that use the network will refuse to run"
                }
                if AppEnvironment.holdsPEMCertificate(path) { return nil }
                return "\(name) names \(TerminalText.quoted(path)), which holds no PEM certificate; commands that use the network will refuse to run"
            }
            if let variable = entry.setting.variable, urlVariables.contains(variable) {
                // Blank is the default (commands trim it), not a wrong URL.
                if value.trimmingWhitespace().isEmpty { return nil }
                let url = value.trimmingWhitespace()
                if URLPolicy.isAllowed(url) { return nil }
                // A URL with a password is not quoted back: only what is wrong with it is said.
                let detail = URLPolicy.refusalDetail(url)
                if !detail.isEmpty { return "\(name) must be an http or https URL\(detail); commands that use it will refuse to run" }
                return "\(name) is \(TerminalText.quoted(value)), not an http or https URL; commands that use it will refuse to run"
            }
            return nil
        }
    }

    /// The value as people may see it: secrets only as set or not. A value that sanitising
    /// would change (two spaces in a row, spaces at an end, a control character) is quoted with
    /// every character shown, so that what is read is what photos uses.
    static func shown(_ entry: Entry) -> String {
        if entry.setting.isSecret { return entry.value == nil ? "not set" : "set (hidden)" }
        // What photos does then, as the setting's summary says it: "not set (xdg-open / open)".
        guard let value = entry.value else { return whenUnset(entry.setting.summary).map { "not set (\($0))" } ?? "not set" }
        let plain = TerminalText.sanitize(value)
        return plain == value ? plain : TerminalText.quoted(value, width: .max)
    }

    /// The default a summary names, "(default X)" or "(default: X)": X.
    static func whenUnset(_ summary: String) -> String? {
        guard let start = summary.range(of: "(default") else { return nil }
        var rest = summary[start.upperBound...]
        if rest.hasPrefix(":") { rest = rest.dropFirst() }
        rest = rest.drop { $0 == " " }
        guard let end = rest.firstIndex(of: ")"), end > rest.startIndex else { return nil }
        return String(rest[..<end])
    }

    /// A row of the table: every cell sanitised but the value, which ``shown(_:)`` made
    /// printable keeping its spaces.
    static func row(_ cells: [String], value: Int) -> [String] {
        cells.indices.map { $0 == value ? cells[$0] : TerminalText.sanitize(cells[$0]) }
    }

    static func describe(_ source: Source) -> String {
        switch source {
        case .environment(let variable): return "environment \(variable)"
        case .file(let path, let line): return "file \(path)" + (line.map { ":\($0)" } ?? "")
        case .default: return "default"
        }
    }

    /// The settings as a table `width` columns wide (nil: every value whole).
    func table(width: Int?) -> String {
        var text = "Config file: \(TerminalText.sanitize(path)) (\(pathSource); \(fileExists ? "present" : "not present: photos config init writes one"))\n\n"
        let fitted = width != nil
        // A terminal narrower than the four columns (80 is usual) gets three: the source names
        // the variable when it is the one set, and the file's path is in the line above, so the
        // source is not cut to "environ…" to make room for what the others repeat.
        if let width, width < 120 {
            let sources = entries.map { entry in
                switch entry.source {
                case .environment(let variable): "env " + variable
                case .file(_, let line): "file" + (line.map { ", line \($0)" } ?? "")
                case .default: "default"
                }
            }
            // The value takes what the setting's and the source's columns leave.
            let sourceWidth = min(28, max(6, sources.map { TerminalText.displayWidth(TerminalText.sanitize($0)) }.max() ?? 0))
            var table = Table(columns: [
                .init("SETTING", maxWidth: 30, wraps: true), .init("VALUE", maxWidth: max(12, width - 30 - sourceWidth - 4), wraps: true), .init("SOURCE"),
            ])
            for (entry, source) in zip(entries, sources) {
                table.append(printable: Self.row([entry.setting.displayKey, Self.shown(entry), source], value: 1))
            }
            text += table.render(width: width)
        } else {
            var table = Table(columns: [
                .init("SETTING", maxWidth: fitted ? 34 : nil, wraps: true), .init("VARIABLE", maxWidth: fitted ? 34 : nil, wraps: true),
                .init("VALUE", maxWidth: fitted ? 40 : nil, wraps: true), .init("SOURCE"),
            ])
            for entry in entries {
                table.append(printable: Self.row([entry.setting.displayKey, entry.setting.variable ?? "-", Self.shown(entry), Self.describe(entry.source)], value: 2))
            }
            text += table.render(width: width ?? Int.max / 4)
        }
        text += "\nphotos \(PhotosVersion.current)\n\(curl?.summary ?? VersionReport.curlLine)\n"
        return text
    }

    enum Keys: String, CodingKey { case file, settings, version }
    enum FileKeys: String, CodingKey { case path, source, exists }
    enum VersionKeys: String, CodingKey { case photos, libcurl }
    enum SettingKeys: String, CodingKey { case key, variable, summary, value, set, secret, source, file, line }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        var file = container.nestedContainer(keyedBy: FileKeys.self, forKey: .file)
        try file.encode(path, forKey: .path)
        try file.encode(pathSource == "environment PHOTOS_CONFIG" ? "environment" : pathSource == "default" ? "default" : "XDG_CONFIG_HOME", forKey: .source)
        try file.encode(fileExists, forKey: .exists)
        var version = container.nestedContainer(keyedBy: VersionKeys.self, forKey: .version)
        try version.encode(PhotosVersion.current, forKey: .photos)
        try version.encode(curl, forKey: .libcurl)
        var settings = container.nestedUnkeyedContainer(forKey: .settings)
        for entry in entries {
            var item = settings.nestedContainer(keyedBy: SettingKeys.self)
            try item.encode(entry.setting.configKey, forKey: .key)
            try item.encode(entry.setting.variable, forKey: .variable)
            try item.encode(entry.setting.summary, forKey: .summary)
            // An integer setting's value is a JSON number, as it is a TOML integer in the file; one
            // that is not an integer (a malformed environment variable) is shown as it was given.
            if !entry.setting.isSecret, case .integer = entry.setting.kind, let value = entry.value, let number = Int(value) {
                try item.encode(number, forKey: .value)
            } else {
                try item.encode(entry.setting.isSecret ? nil : entry.value, forKey: .value)
            }
            try item.encode(entry.value != nil, forKey: .set)
            try item.encode(entry.setting.isSecret, forKey: .secret)
            switch entry.source {
            case .environment:
                try item.encode("environment", forKey: .source)
            case .file(let path, let line):
                try item.encode("file", forKey: .source)
                try item.encode(path, forKey: .file)
                try item.encode(line, forKey: .line)
            case .default:
                try item.encode("default", forKey: .source)
            }
        }
    }
}
