import ArgumentParser
import Foundation
import PhotosCore

extension PhotosCommand {
    /// `photos config`: where settings come from, and a starting config file.
    struct Config: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "config",
            abstract: "Show the effective settings and where each comes from, or write a config file.",
            discussion: """
                Every setting can be given in the environment or in the config file (TOML); the \
                environment wins, then the file, then the default.

                Examples:
                  photos config show                 # every setting, its value and its source
                  photos config show --format json
                  photos config path                 # the config file photos reads
                  photos config init                 # write a commented template there
                """,
            subcommands: [Show.self, Path.self, Init.self],
            defaultSubcommand: Show.self
        )

        /// `photos config show`.
        struct Show: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "show",
                abstract: "Show the effective value of every setting and where it comes from.",
                discussion: """
                    SOURCE is "environment" (and the variable), "file" (and the file and line) \
                    or "default". Secrets such as API keys are shown only as set or not set. The \
                    last lines name photos' version and the libcurl it uses (HTTP/2, TLS library).

                    Examples:
                      photos config show
                      PHOTOS_CACHE_MAX_SIZE_MB=100 photos config show   # what a variable changes
                      photos config show --format json
                    """
            )

            enum Format: String, CaseInsensitiveArgument, CaseIterable {
                case table, json
            }

            @Option(help: ArgumentHelp("Output format: table or json.", valueName: "format"))
            var format: Format = .table

            func run() async throws {
                let format = format
                try await CommandRuntime.run {
                    // The file's mistakes are said, and the settings shown without them: this is
                    // where a user looks for what is wrong.
                    let environment = try AppEnvironment.load(lenient: true)
                    let left = environment.config.unparsed ? "the whole file is left out below" : "that setting is left out below"
                    for mistake in environment.config.problems {
                        Diagnostics.warning("config file \(mistake.description); \(left), and other commands refuse to run until it is fixed")
                    }
                    let report = ConfigReport(environment: environment)
                    // A value the commands would refuse is shown as it is, and said here rather
                    // than at the next command that needs it.
                    for problem in report.problems { Diagnostics.warning(problem) }
                    switch format {
                    case .json: try Output.write(try JSONOutput.encode(report, pretty: true) + "\n")
                    case .table:
                        // Paths and URLs are not cut short for a pipe or a file.
                        try Output.write(report.table(width: environment.reportWidth))
                    }
                }
            }
        }

        /// `photos config path`.
        struct Path: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "path",
                abstract: "Print the path of the config file photos reads (PHOTOS_CONFIG, else $XDG_CONFIG_HOME/photos/config.toml).",
                discussion: """
                    Examples:
                      photos config path
                      "$EDITOR" "$(photos config path)"
                    """)

            func run() async throws {
                try await CommandRuntime.run {
                    try Output.write(ConfigFile.location(environment: ProcessEnvironment.current()) + "\n")
                }
            }
        }

        /// `photos config init`.
        struct Init: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "init",
                abstract: "Write a commented template of every setting to the config file; never overwrites one.",
                discussion: """
                    Every setting is commented out: remove the # before a line to set it.

                    Examples:
                      photos config init
                      PHOTOS_CONFIG=~/photos-test.toml photos config init
                    """)

            func run() async throws {
                try await CommandRuntime.run {
                    let environment = ProcessEnvironment.current()
                    let path = ConfigFile.location(environment: environment)
                    try ConfigTemplate.write(to: path, schema: ConfigSchema(registry: .standard))
                    Diagnostics.note("Wrote \(path); photos config show prints what it sets.")
                }
            }
        }
    }
}
