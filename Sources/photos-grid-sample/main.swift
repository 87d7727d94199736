// photos-grid-sample: a test tool, not shipped. Prints a thumbnail grid (or one preview) of image
// files with the PhotosImaging library, as `photos list --format grid` / `show --preview` do.
// Used by PhotosImagingTests (under tmux) and the grid section of Benchmarks/run.sh.
//
//   photos-grid-sample [--graphics MODE] [--columns N] [--width COLS] [--cache DIR]
//                      [--title TEXT]... FILE...        (FILE ":missing" = a tile without image)
//   photos-grid-sample --preview [--graphics MODE] [--width COLS] [--rows N] FILE
//
// MODE is auto|kitty|iterm|sixel|symbols|none (default auto: detected from the environment).
// Width defaults to the terminal's, else COLUMNS, else 80. Exit status: 0, 1 if any tile failed
// (grid) or the image could not be drawn (preview), 64 on usage errors.

import Foundation
import PhotosImaging
import PhotosTerminal

func usage(_ message: String) -> Never {
    FileHandle.standardError.write(Data("photos-grid-sample: \(message)\n".utf8))
    exit(64)
}

var mode = GraphicsMode.auto
var columns = 3
var width: Int?
var rows: Int?
var cacheFolder: String?
var preview = false
var titles: [String] = []
var files: [String] = []

var arguments = CommandLine.arguments.dropFirst()
@MainActor func value(for option: String) -> String {
    guard let next = arguments.popFirst() else { usage("\(option) needs a value") }
    return next
}
while let argument = arguments.popFirst() {
    switch argument {
    case "--graphics":
        let raw = value(for: argument)
        guard let parsed = GraphicsMode(rawValue: raw) else { usage("unknown graphics mode \(raw)") }
        mode = parsed
    case "--columns":
        guard let parsed = Int(value(for: argument)), parsed > 0 else { usage("--columns needs a positive number") }
        columns = parsed
    case "--width":
        guard let parsed = Int(value(for: argument)), parsed > 0 else { usage("--width needs a positive number") }
        width = parsed
    case "--rows":
        guard let parsed = Int(value(for: argument)), parsed > 0 else { usage("--rows needs a positive number") }
        rows = parsed
    case "--cache": cacheFolder = value(for: argument)
    case "--title": titles.append(value(for: argument))
    case "--preview": preview = true
    case "--help", "-h":
        print("usage: photos-grid-sample [--preview] [--graphics MODE] [--columns N] [--width COLS] [--rows N] [--cache DIR] [--title T]... FILE...")
        exit(0)
    default:
        if argument.hasPrefix("--") { usage("unknown option \(argument)") }
        files.append(argument)
    }
}
guard !files.isEmpty else { usage("no files") }

let environment = ProcessInfo.processInfo.environment
let stdoutIsTerminal = TTY.isTerminal(1, environment: environment)
let graphics = TerminalGraphics.detect(
    requested: mode, environment: environment, stdoutIsTerminal: stdoutIsTerminal,
    cellPixelSize: TerminalGraphics.cellPixelSize(of: 1))
let terminalColumns = width ?? TTY.columns(1) ?? environment["COLUMNS"].flatMap { Int($0) } ?? 80
let cache = cacheFolder.map { TileCache(directory: URL(fileURLWithPath: $0)) }

if preview {
    do {
        let text = try Preview.render(
            path: URL(fileURLWithPath: files[0]), maxColumns: terminalColumns, maxRows: rows, graphics: graphics, cache: cache)
        FileHandle.standardOutput.write(Data(text.utf8))
    } catch {
        FileHandle.standardError.write(Data("photos-grid-sample: \(files[0]): \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}

let tiles = files.enumerated().map { index, file in
    GridTile(
        title: index < titles.count ? titles[index] : URL(fileURLWithPath: file).lastPathComponent,
        id: "sample:\(index + 1)",
        imagePath: file == ":missing" ? nil : URL(fileURLWithPath: file))
}
let grid = ThumbnailGrid.render(
    tiles: tiles, columns: columns, terminalColumns: terminalColumns, graphics: graphics, cache: cache)
FileHandle.standardOutput.write(Data(grid.text.utf8))
if grid.failures > 0 {
    FileHandle.standardError.write(Data("\(grid.failures) thumbnail(s) could not be drawn\n".utf8))
    exit(1)
}
