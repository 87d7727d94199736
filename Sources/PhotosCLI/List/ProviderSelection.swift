import PhotosCore
import PhotosTerminal

/// Which providers a listing asks, from `--provider`, the config and `--filter`.
struct ProviderSelection {
    let environment: AppEnvironment

    /// The error for a provider name no provider has: the one meant when one is close, then
    /// the names there are. `origin` says where the name came from (", in 'x:1'").
    static func unknownProvider(_ name: String, known: [String], origin: String = "") -> PhotosError {
        PhotosError.usage(unknownProviderMessage(name, known: known, origin: origin))
    }

    static func unknownProviderMessage(_ name: String, known: [String], origin: String = "") -> String {
        let near = CommandSuggestion.closest(name, among: known).map { " did you mean '\($0)'?" } ?? ""
        let names = known.count > 1 ? known.dropLast().joined(separator: ", ") + " or " + known[known.count - 1] : known.joined()
        return "unknown provider \(TerminalText.quoted(name))\(origin);\(near) choose from \(names)"
    }

    /// The providers a listing asks: those named (`a,b`), every ready one (`all`), or, when none
    /// is named, the config's `[defaults] provider`, else every ready provider of real photos.
    /// With filters, only providers that understand them: one named on the command line that
    /// does not is a usage error naming the filters it knows; one the config names is skipped
    /// with a note, as those photos chose are, unless none is left.
    /// `quiet` checks without saying which providers are skipped (`config show`).
    func resolve(_ spec: String?, filters: [(key: String, value: String)] = [], query: String? = nil, quiet: Bool = false) throws -> [String] {
        let registry = environment.registry
        let known = registry.names
        let requested = (spec ?? environment.defaultProviders ?? "")
            .split(separator: ",").map { String($0).trimmingWhitespace().lowercased() }.filter { !$0.isEmpty }
        if spec != nil, requested.isEmpty {
            throw PhotosError.usage("--provider needs a name: \(known.joined(separator: ", ")) or all")
        }
        var names: [String] = []
        let chosenByPhotos = requested.isEmpty || requested == ["all"]
        // Names from the config file are the user's defaults, not this command's: a filter one
        // of them cannot apply skips it, as it skips a provider photos chose.
        let namedByConfig = spec == nil && !chosenByPhotos
        let maySkip = chosenByPhotos || namedByConfig
        let fromConfig = namedByConfig ? " (named by config [defaults] provider)" : ""
        if requested.isEmpty {
            names = environment.readyProviders.filter { !$0.isSampleData }.map(\.name)
            guard !names.isEmpty else {
                throw PhotosError.usage("no provider is ready to use; see photos providers, or name one with --provider")
            }
        } else if requested == ["all"] {
            for descriptor in registry.descriptors {
                if descriptor.isConfigured(environment.settings) {
                    names.append(descriptor.name)
                } else {
                    let needs = descriptor.requiredSettings.map(\.variable).joined(separator: " and ")
                    if !quiet { Diagnostics.remark("\(descriptor.name) skipped: it needs \(needs) (see photos providers)") }
                }
            }
        } else {
            // Names from the config file say so: the command line did not name them.
            let origin = spec == nil ? " (config [defaults] provider)" : ""
            for name in requested {
                if name == "all" {
                    throw PhotosError.usage(
                        "'all' names every ready provider and goes alone\(origin): --provider all, or names such as --provider \(known.prefix(2).joined(separator: ","))")
                }
                guard known.contains(name) else {
                    throw Self.unknownProvider(name, known: known + ["all"], origin: origin)
                }
                if !names.contains(name) { names.append(name) }
            }
        }
        guard !filters.isEmpty else { return names }

        var understood: [String] = []
        var refused: (any Error)?
        // Said only when some provider lists: an error says it all otherwise.
        var skipped: [String] = []
        for name in names {
            guard let descriptor = registry.descriptor(name) else { continue }
            if let unknown = filters.first(where: { descriptor.filter(named: $0.key) == nil }) {
                let knows = descriptor.filters.isEmpty ? "it has no filters" : "it knows \(descriptor.filters.map(\.name).joined(separator: ", "))"
                if !chosenByPhotos {
                    let error: PhotosError
                    if let near = CommandSuggestion.closest(unknown.key, among: descriptor.filters.map(\.name)) {
                        error = .usage("\(name)\(fromConfig) has no filter \(TerminalText.quoted(unknown.key)); did you mean '\(near)'? (\(knows))")
                    } else {
                        // A filter another provider has (`--album` is placeholder's): said, with how.
                        let holders = registry.descriptors.filter { $0.filter(named: unknown.key) != nil }.map(\.name)
                        let elsewhere = holders.isEmpty ? "" : " (\(holders.joined(separator: ", ")) \(holders.count == 1 ? "has" : "have") it: --provider \(holders[0]))"
                        error = .usage("\(name)\(fromConfig) has no filter \(TerminalText.quoted(unknown.key))\(elsewhere); \(knows)")
                    }
                    guard namedByConfig else { throw error }
                    refused = refused ?? error
                }
                skipped.append("\(name)\(fromConfig) skipped: it has no filter \(TerminalText.quoted(unknown.key))")
                continue
            }
            do {
                for (key, value) in filters {
                    try descriptor.filter(named: key)?.validate(value, provider: name)
                }
            } catch {
                // A value one provider's filter refuses (sort orders differ between providers):
                // skipped like a filter it lacks, when the command line did not name it.
                guard maySkip else { throw error }
                skipped.append("\(name)\(fromConfig) skipped: \(Diagnostics.describe(error))")
                refused = refused ?? (namedByConfig ? Self.namedByConfig(Diagnostics.describe(error), name) : error)
                continue
            }
            // A filter it applies only to a search, in a listing that is none (Flickr's recent
            // photos): listing without it would hand out what the filter was to keep out.
            let given = filters.filter { !$0.value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }.map(\.key)
            if let unusable = descriptor.filterNeedingSearch(given, query: query) {
                let error = PhotosError.usage(descriptor.needsSearchMessage(unusable))
                guard maySkip else { throw error }
                skipped.append("\(name)\(fromConfig) skipped: its filter \(unusable.name) applies only to a search (add --query, or a filter that makes one)")
                refused = refused ?? (namedByConfig ? Self.namedByConfig(descriptor.needsSearchMessage(unusable), name) : error)
                continue
            }
            understood.append(name)
        }
        if understood.isEmpty, let refused { throw refused }
        guard !understood.isEmpty else {
            let keys = Set(filters.map(\.key)).sorted().joined(separator: ", ")
            // Providers photos did not choose (those used only when named) that have them all.
            let others = registry.descriptors.filter { descriptor in
                !names.contains(descriptor.name) && filters.allSatisfy { descriptor.filter(named: $0.key) != nil }
            }.map(\.name)
            if !others.isEmpty {
                let which = others.count == 1 ? "\(others[0]) has it" : "\(others.joined(separator: " and ")) have it"
                throw PhotosError.usage(
                    "no provider listed by default has the filter \(keys); \(which): name it, as in --provider \(others[0])")
            }
            let offers = registry.descriptors.filter { !$0.filters.isEmpty }
                .map { "\($0.name): \($0.filters.map(\.name).joined(separator: ", "))" }.joined(separator: "; ")
            throw PhotosError.usage("no provider has the filter \(keys); filters by provider: \(offers)")
        }
        if !quiet { for note in skipped { Diagnostics.remark(note) } }
        return understood
    }

    /// A refusal of a provider the config named, saying so and how to choose others.
    static func namedByConfig(_ message: String, _ name: String) -> PhotosError {
        .usage("\(message); \(name) is named by config [defaults] provider (--provider names others)")
    }

    /// `filters` under the names `descriptor` uses (its aliases resolved), later values winning.
    static func canonicalFilters(_ filters: [(key: String, value: String)], for descriptor: ProviderDescriptor) -> [String: String] {
        var result: [String: String] = [:]
        for (key, value) in filters {
            result[descriptor.filter(named: key)?.name ?? key] = value
        }
        return result
    }
}
