import Testing

@testable import PhotosImaging

@Suite struct GraphicsDetectionTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var environment: [String: String]
        var terminal = true
        var requested = GraphicsMode.auto
        var mode: GraphicsMode
        var colors: ColorDepth

        var testDescription: String {
            let env = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            return "\(requested.rawValue) [\(env)]\(terminal ? "" : " piped") -> \(mode.rawValue)/\(colors.rawValue)"
        }
    }

    static let cases: [Case] = [
        // Not a terminal, or a dumb one: no images unless asked for.
        Case(environment: ["TERM": "xterm-kitty"], terminal: false, mode: .none, colors: .truecolor),
        Case(environment: ["TERM": "dumb"], mode: .none, colors: .indexed256),
        Case(environment: [:], terminal: false, mode: .none, colors: .indexed16),
        // A terminal without TERM (`env -i`) names no capabilities: no pictures unless asked for.
        Case(environment: [:], mode: .none, colors: .indexed16),
        Case(environment: ["TERM": ""], mode: .none, colors: .indexed16),
        Case(environment: [:], requested: .symbols, mode: .symbols, colors: .indexed16),
        // kitty protocol
        Case(environment: ["TERM": "xterm-kitty"], mode: .kitty, colors: .truecolor),
        Case(environment: ["TERM": "xterm-256color", "KITTY_WINDOW_ID": "1"], mode: .kitty, colors: .truecolor),
        Case(environment: ["TERM": "xterm-ghostty", "TERM_PROGRAM": "ghostty"], mode: .kitty, colors: .truecolor),
        // iTerm2 protocol
        Case(environment: ["TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"], mode: .iterm, colors: .truecolor),
        Case(environment: ["TERM": "xterm-256color", "LC_TERMINAL": "iTerm2"], mode: .iterm, colors: .indexed256),
        Case(environment: ["TERM": "xterm-256color", "TERM_PROGRAM": "WezTerm"], mode: .iterm, colors: .truecolor),
        // sixel
        Case(environment: ["TERM": "foot"], mode: .sixel, colors: .truecolor),
        Case(environment: ["TERM": "mlterm"], mode: .sixel, colors: .indexed256),
        Case(environment: ["TERM": "yaft-256color"], mode: .sixel, colors: .indexed256),
        Case(environment: ["TERM": "xterm-256color", "KONSOLE_VERSION": "220401"], mode: .sixel, colors: .indexed256),
        Case(environment: ["TERM": "xterm-256color", "KONSOLE_VERSION": "211201"], mode: .symbols, colors: .indexed256),
        // Inside tmux or screen, pixel sequences do not get through: symbols, whatever the outer terminal.
        Case(environment: ["TERM": "tmux-256color", "TMUX": "/tmp/tmux-0/default,1,0", "TERM_PROGRAM": "tmux"], mode: .symbols, colors: .indexed256),
        Case(environment: ["TERM": "screen", "TMUX": "/tmp/tmux-0/default,1,0", "LC_TERMINAL": "iTerm2"], mode: .symbols, colors: .indexed256),
        Case(environment: ["TERM": "screen-256color", "COLORTERM": "truecolor"], mode: .symbols, colors: .truecolor),
        // Plain terminals
        Case(environment: ["TERM": "xterm-256color", "COLORTERM": "truecolor"], mode: .symbols, colors: .truecolor),
        Case(environment: ["TERM": "xterm-256color", "COLORTERM": "24bit", "VTE_VERSION": "7000"], mode: .symbols, colors: .truecolor),
        Case(environment: ["TERM": "xterm-256color", "TERM_PROGRAM": "Apple_Terminal"], mode: .symbols, colors: .indexed256),
        Case(environment: ["TERM": "xterm-direct"], mode: .symbols, colors: .truecolor),
        Case(environment: ["TERM": "xterm"], mode: .symbols, colors: .indexed256),
        Case(environment: ["TERM": "linux"], mode: .symbols, colors: .indexed16),
        // Terminals without colour get none (VT100 had none; xterm-mono says so).
        Case(environment: ["TERM": "vt100"], mode: .symbols, colors: .monochrome),
        Case(environment: ["TERM": "xterm-mono"], mode: .symbols, colors: .monochrome),
        Case(environment: ["TERM": "vt340"], mode: .symbols, colors: .indexed16),
        // NO_COLOR: symbols without colour; an empty NO_COLOR does not count.
        Case(environment: ["TERM": "xterm-256color", "COLORTERM": "truecolor", "NO_COLOR": "1"], mode: .symbols, colors: .monochrome),
        Case(environment: ["TERM": "xterm-256color", "NO_COLOR": ""], mode: .symbols, colors: .indexed256),
        Case(environment: ["TERM": "xterm-kitty", "NO_COLOR": "1"], mode: .kitty, colors: .monochrome),
        // Explicit modes win, on terminals and off them.
        Case(environment: ["TERM": "xterm-256color"], terminal: false, requested: .symbols, mode: .symbols, colors: .indexed256),
        Case(environment: ["TERM": "dumb"], requested: .sixel, mode: .sixel, colors: .indexed256),
        Case(environment: ["TERM": "xterm-kitty"], requested: .none, mode: .none, colors: .truecolor),
        Case(environment: ["TERM": "xterm-256color"], requested: .kitty, mode: .kitty, colors: .indexed256),
        Case(environment: ["TERM": "xterm-kitty"], terminal: false, requested: .iterm, mode: .iterm, colors: .truecolor),
    ]

    @Test(arguments: cases)
    func detects(_ example: Case) {
        let graphics = TerminalGraphics.detect(
            requested: example.requested, environment: example.environment, stdoutIsTerminal: example.terminal)
        #expect(graphics.mode == example.mode)
        #expect(graphics.colors == example.colors)
        #expect(graphics.cellPixelSize == TerminalGraphics.defaultCellPixelSize)
        if example.requested == .auto {
            #expect(GraphicsMode.detect(environment: example.environment, stdoutIsTerminal: example.terminal) == example.mode)
        }
    }

    @Test func neverResolvesToAuto() {
        for requested in GraphicsMode.allCases {
            let graphics = TerminalGraphics.detect(requested: requested, environment: [:], stdoutIsTerminal: true)
            #expect(graphics.mode != .auto)
        }
        #expect(TerminalGraphics(mode: .auto).mode == .symbols)
    }

    @Test func reportedCellSizeIsKept() {
        let cell = PixelSize(width: 9, height: 18)
        let graphics = TerminalGraphics.detect(environment: ["TERM": "foot"], stdoutIsTerminal: true, cellPixelSize: cell)
        #expect(graphics.cellPixelSize == cell)
        #expect(TerminalGraphics(mode: .sixel, cellPixelSize: PixelSize(width: 0, height: 0)).cellPixelSize == TerminalGraphics.defaultCellPixelSize)
    }

    @Test func parsesCommandLineValues() {
        #expect(GraphicsMode.allCases.map(\.rawValue) == ["auto", "kitty", "iterm", "sixel", "symbols", "none"])
        #expect(GraphicsMode(rawValue: "sixel") == .sixel)
        #expect(GraphicsMode(rawValue: "iterm2") == nil)
    }
}
