import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How images are drawn in the terminal; the values of `--graphics`.
public enum GraphicsMode: String, CaseIterable, Sendable, Codable {
    /// Pick from the environment (see `TerminalGraphics.detect`).
    case auto
    /// kitty graphics protocol (kitty, Ghostty).
    case kitty
    /// iTerm2 inline images (iTerm2, WezTerm).
    case iterm
    /// DEC sixel (foot, mlterm, Konsole, xterm -ti vt340).
    case sixel
    /// Unicode block and line symbols with colours: works in every terminal, and in tmux.
    case symbols
    /// No images.
    case none

    /// The mode `auto` resolves to in `environment`; see `TerminalGraphics.detect`.
    /// - Parameters:
    ///   - environment: the process environment (TERM, TERM_PROGRAM, LC_TERMINAL, KONSOLE_VERSION, ...).
    ///   - stdoutIsTerminal: whether stdout is an interactive terminal (`TTY.isTerminal(1)`).
    public static func detect(environment: [String: String], stdoutIsTerminal: Bool) -> GraphicsMode {
        TerminalGraphics.detect(environment: environment, stdoutIsTerminal: stdoutIsTerminal).mode
    }
}

/// The colours symbol output may use.
public enum ColorDepth: String, CaseIterable, Sendable, Codable {
    /// 24-bit colour (`COLORTERM=truecolor`).
    case truecolor
    /// The 240 stable colours of the 256-colour palette.
    case indexed256
    /// The 16 ANSI colours (Linux console).
    case indexed16
    /// No colour escape sequences at all (`NO_COLOR`): shapes only.
    case monochrome
}

/// Everything the renderer needs to know about the terminal: a concrete mode, colours, cell size.
public struct TerminalGraphics: Hashable, Sendable {
    /// Never `.auto`.
    public var mode: GraphicsMode
    public var colors: ColorDepth
    /// One character cell in pixels; pixel modes size images with it, and its ratio shapes symbols.
    public var cellPixelSize: PixelSize

    /// The usual 10x20 cell, used when the terminal does not report its pixel size.
    public static let defaultCellPixelSize = PixelSize(width: 10, height: 20)

    /// - Parameters:
    ///   - mode: a concrete mode; `.auto` is treated as `.symbols`.
    ///   - colors: colours for symbol output.
    ///   - cellPixelSize: one cell in pixels.
    public init(mode: GraphicsMode, colors: ColorDepth = .truecolor, cellPixelSize: PixelSize = TerminalGraphics.defaultCellPixelSize) {
        self.mode = mode == .auto ? .symbols : mode
        self.colors = colors
        self.cellPixelSize = cellPixelSize.width > 0 && cellPixelSize.height > 0 ? cellPixelSize : Self.defaultCellPixelSize
    }

    /// Resolves `--graphics` against the environment. A pure function, so it is table-tested.
    ///
    /// - An explicit mode is honoured even when stdout is not a terminal (scripts, tests, benchmarks).
    /// - `auto` is `none` unless stdout is a terminal and TERM names one other than `dumb` (an
    ///   unset TERM says nothing about what the terminal draws, as for git's colours); inside tmux or screen it
    ///   is `symbols` (pixel sequences do not pass through); otherwise kitty for kitty/Ghostty, iterm
    ///   for iTerm2 (TERM_PROGRAM or LC_TERMINAL, which survives ssh) and WezTerm, sixel for foot,
    ///   mlterm, yaft, contour, mintty and Konsole 22.04+ (KONSOLE_VERSION), else `symbols`.
    /// - Colours: `NO_COLOR` (non-empty) gives monochrome symbols; COLORTERM=truecolor|24bit, a
    ///   `-direct` TERM and terminals known for 24-bit colour give truecolor; TERM=linux and plain
    ///   vt/ansi terminals 16 colours; anything else 256.
    ///
    /// - Parameters:
    ///   - requested: the `--graphics` value.
    ///   - environment: the process environment.
    ///   - stdoutIsTerminal: whether stdout is an interactive terminal.
    ///   - cellPixelSize: the cell size when known (`TerminalGraphics.cellPixelSize(of:)`).
    public static func detect(
        requested: GraphicsMode = .auto,
        environment: [String: String],
        stdoutIsTerminal: Bool,
        cellPixelSize: PixelSize? = nil
    ) -> TerminalGraphics {
        let mode = requested == .auto
            ? autoMode(environment: environment, stdoutIsTerminal: stdoutIsTerminal)
            : requested
        return TerminalGraphics(
            mode: mode,
            colors: colorDepth(environment: environment),
            cellPixelSize: cellPixelSize ?? defaultCellPixelSize
        )
    }

    static func autoMode(environment env: [String: String], stdoutIsTerminal: Bool) -> GraphicsMode {
        let term = (env["TERM"] ?? "").lowercased()
        guard stdoutIsTerminal, !term.isEmpty, term != "dumb" else { return .none }
        let program = (env["TERM_PROGRAM"] ?? "").lowercased()
        func has(_ name: String) -> Bool { !(env[name] ?? "").isEmpty }

        if has("TMUX") || has("STY") || term.hasPrefix("screen") || term.hasPrefix("tmux") || program == "tmux" {
            return .symbols
        }
        if term == "xterm-kitty" || has("KITTY_WINDOW_ID") || term == "xterm-ghostty" || program == "ghostty" {
            return .kitty
        }
        if program == "iterm.app" || env["LC_TERMINAL"]?.lowercased() == "iterm2" || program == "wezterm" || term == "wezterm" {
            return .iterm
        }
        let sixelTerms = ["foot", "mlterm", "yaft", "contour", "mintty"]
        if sixelTerms.contains(where: { term.hasPrefix($0) }) || program == "mintty" {
            return .sixel
        }
        // Konsole gained sixel (and kitty) images in 22.04; KONSOLE_VERSION is e.g. "220401".
        if let konsole = env["KONSOLE_VERSION"], let version = Int(konsole), version >= 220400 {
            return .sixel
        }
        return .symbols
    }

    static func colorDepth(environment env: [String: String]) -> ColorDepth {
        if let noColor = env["NO_COLOR"], !noColor.isEmpty { return .monochrome }
        let term = (env["TERM"] ?? "").lowercased()
        let colorterm = (env["COLORTERM"] ?? "").lowercased()
        let program = (env["TERM_PROGRAM"] ?? "").lowercased()
        if colorterm == "truecolor" || colorterm == "24bit" || term.hasSuffix("-direct") || term.contains("truecolor") {
            return .truecolor
        }
        if term == "xterm-kitty" || term == "xterm-ghostty" || term.hasPrefix("foot") || term == "wezterm"
            || ["iterm.app", "wezterm", "vscode", "ghostty"].contains(program) || !(env["KITTY_WINDOW_ID"] ?? "").isEmpty {
            return .truecolor
        }
        if term.contains("256color") { return .indexed256 }
        // Terminals without colour: their terminfo names say so (`xterm-mono`, `-m`), and the
        // DEC terminals photos' users meet emulated (VT52 to VT320) had none.
        if term.hasSuffix("-mono") || term.hasSuffix("-m") || ["vt52", "vt100", "vt102", "vt220", "vt320"].contains(term) {
            return .monochrome
        }
        if term == "linux" || term.hasPrefix("vt") || term == "ansi" || term == "cons25" || term.isEmpty {
            return .indexed16
        }
        return .indexed256
    }
}

extension TerminalGraphics {
    /// The size of one character cell in pixels, when the terminal on `descriptor` reports it
    /// (TIOCGWINSZ; many terminals do, tmux and some emulators report zero).
    public static func cellPixelSize(of descriptor: Int32) -> PixelSize? {
        var size = winsize()
        guard isatty(descriptor) == 1, ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0,
              size.ws_col > 0, size.ws_row > 0, size.ws_xpixel > 0, size.ws_ypixel > 0
        else { return nil }
        let cell = PixelSize(width: Int(size.ws_xpixel) / Int(size.ws_col), height: Int(size.ws_ypixel) / Int(size.ws_row))
        return cell.width > 0 && cell.height > 0 ? cell : nil
    }

    /// The terminal's height in rows, when `descriptor` is a terminal.
    public static func rows(of descriptor: Int32) -> Int? {
        var size = winsize()
        guard isatty(descriptor) == 1, ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 else { return nil }
        return Int(size.ws_row)
    }
}
