import ArgumentParser
import Foundation
import PhotosCache
import PhotosCore
import PhotosProviders
import PhotosTerminal

/// Shell completions that know photos' values: provider names from the registry, and photo ids
/// from the most recent cached listings.
enum Completions {
    /// `--provider`: every registered provider, and `all`; after a comma, the providers the list
    /// does not name yet (`flickr,<Tab>` offers `flickr,placeholder`, ...).
    static var providers: CompletionKind {
        .custom { _, _, prefix in providerCandidates(prefix: prefix) }
    }

    /// The candidates for a `--provider` value that starts with `prefix`.
    static func providerCandidates(prefix: String) -> [String] {
        let names = ProviderRegistry.standard.names
        guard let comma = prefix.lastIndex(of: ",") else { return names + ["all"] }
        let chosen = Set(prefix[..<comma].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
        return names.filter { !chosen.contains($0) }.map { String(prefix[...comma]) + $0 }
    }

    /// A photo id: those of the most recently used cached listings. The shell runs
    /// `photos ---completion ...` on each Tab; the parser answers it before any command runs, and
    /// this reads the index only (no network, no cache maintenance).
    static var photoIDs: CompletionKind {
        .custom { _, _, prefix in
            photoIDCandidates(prefix: prefix, environment: ProcessEnvironment.current())
        }
    }

    /// The candidates for `prefix`, in the form the calling shell (`SAP_SHELL`) reads: bash one
    /// id a line; zsh `id:title` with the id's colons escaped; fish `id<TAB>title`.
    static func photoIDCandidates(prefix: String, environment: [String: String]) -> [String] {
        // A config file that does not parse gives no candidates; the command itself reports it.
        guard let app = try? AppEnvironment.load(environment: environment) else { return [] }
        let candidates = PhotoCache.recentPhotoIDs(root: app.cacheRoot, prefix: prefix)
        func title(_ candidate: PhotoCache.CompletionCandidate) -> String {
            let text = TerminalText.sanitize(candidate.title).replacingOccurrences(of: "\t", with: " ")
            return text.count > 60 ? String(text.prefix(59)) + "…" : text
        }
        switch environment["SAP_SHELL"] {
        case "zsh":
            return candidates.map { candidate in
                let id = candidate.id.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ":", with: "\\:")
                let description = title(candidate)
                return description.isEmpty ? id : "\(id):\(description)"
            }
        case "fish":
            return candidates.map { candidate in
                let description = title(candidate)
                return description.isEmpty ? candidate.id : "\(candidate.id)\t\(description)"
            }
        default:
            return candidates.map(\.id)
        }
    }

    /// The bash script: the argument parser's, then a wrapper that keeps `provider:id` whole.
    static func bashScript() -> String {
        PhotosCommand.completionScript(for: .bash) + bashColonWrapper
    }

    /// bash splits words at `:` (it is in COMP_WORDBREAKS), so `photos show flickr:53<Tab>`
    /// would reach the generated function as three words. The wrapper joins words that touch a
    /// colon, runs the generated `_photos` on them, and trims from each answer the part before
    /// the last colon, which bash keeps (as bash-completion's `__ltrim_colon_completions` does).
    /// It also turns off `-o filenames` for ids, which would insert `flickr\:53624890009`.
    static let bashColonWrapper = #"""

        # photos ids look like provider:id; bash splits words at ':', so join them again first.
        _photos_whole_ids() {
            if [[ "${COMP_WORDBREAKS}" != *:* ]]; then
                _photos "${@}"
                return
            fi
            local -a joined=()
            local -i joined_cword=0 i
            local rest="${COMP_LINE}" word trimmed
            for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
                word="${COMP_WORDS[i]}"
                trimmed="${rest#"${rest%%[![:space:]]*}"}"
                if ((i > 0)) && [[ "${trimmed}" == "${rest}" ]] \
                    && [[ "${word}" == :* || "${joined[${#joined[@]} - 1]}" == *: ]]; then
                    joined[${#joined[@]} - 1]+="${word}"
                else
                    joined+=("${word}")
                fi
                rest="${trimmed#"${word}"}"
                ((i == COMP_CWORD)) && joined_cword=$((${#joined[@]} - 1))
            done
            local current="${joined[joined_cword]}"
            local previous=""
            ((joined_cword > 0)) && previous="${joined[joined_cword - 1]}"
            local -a COMP_WORDS=("${joined[@]}")
            local COMP_CWORD="${joined_cword}"
            _photos "${1}" "${current}" "${previous}"
            if [[ "${current}" == *:* ]]; then
                local colon_prefix="${current%"${current##*:}"}"
                COMPREPLY=("${COMPREPLY[@]#"${colon_prefix}"}")
            fi
            # Ids are not file names: inserted as they are, not as provider\:id, but quoted for
            # the shell otherwise (NASA's ids may hold spaces).
            if [[ "${current}" == *:* || "${COMPREPLY[*]}" == *:* ]]; then
                compopt +o filenames 2>/dev/null
                local -a quoted=()
                local reply
                for reply in "${COMPREPLY[@]}"; do
                    printf -v reply '%q' "${reply}"
                    quoted+=("${reply}")
                done
                COMPREPLY=("${quoted[@]}")
            fi
        }

        complete -o filenames -F _photos_whole_ids photos

        """#
}
