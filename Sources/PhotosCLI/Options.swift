import ArgumentParser

/// How results are printed.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json, jsonl

    static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

/// Options every data command shares.
struct OutputOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Output format: table (for people), json (one object) or jsonl (one photo per line).",
        valueName: "format"))
    var format: OutputFormat = .table
}
