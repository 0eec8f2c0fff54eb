import Aggregator

/// A one-line output of `status --format NAME` for a status bar: its name, one line of help, and the
/// line it makes of a merged view, escaped for its bar. Adding one is a file here and one line in
/// `StatusBarFormats.standard`; `--format`'s choices and help come from the list.
protocol StatusBarFormat: Sendable {
    var name: String { get }
    /// For `status --help`: what reads it.
    var summary: String { get }
    func render(_ result: MergeResult) -> String
}

/// The status-bar formats aggctl ships, beside `table` and `json`.
enum StatusBarFormats {
    static let standard: [any StatusBarFormat] = [
        LineFormat(),
        TmuxFormat(),
        WaybarFormat(),
    ]

    static func named(_ name: String) -> (any StatusBarFormat)? {
        standard.first { $0.name == name }
    }
}

/// `--format line`: one line for i3blocks and polybar.
struct LineFormat: StatusBarFormat {
    let name = "line"
    let summary = "one line for i3blocks, polybar"
    func render(_ result: MergeResult) -> String { StatusBar.line(result) }
}

/// `--format tmux`: the line with every `#` doubled, for tmux's `status-right`.
struct TmuxFormat: StatusBarFormat {
    let name = "tmux"
    let summary = "the line for tmux's status"
    func render(_ result: MergeResult) -> String { StatusBar.tmux(result) }
}

/// `--format waybar`: waybar's custom-module JSON.
struct WaybarFormat: StatusBarFormat {
    let name = "waybar"
    let summary = "waybar's custom-module JSON"
    func render(_ result: MergeResult) -> String { StatusBar.waybar(result) }
}
