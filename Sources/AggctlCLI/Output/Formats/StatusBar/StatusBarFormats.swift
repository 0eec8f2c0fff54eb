import Aggregator

/// `--format line`: one line for i3blocks and polybar.
struct LineFormat: OutputFormat {
    let name = "line"
    let summary = "one line for i3blocks, polybar"
    let command = FormatCommand.status
    func render(_ result: MergeResult, table: String) -> [UInt8] { Array((StatusBar.line(result) + "\n").utf8) }
}

/// `--format tmux`: the line with every `#` doubled, for tmux's `status-right`.
struct TmuxFormat: OutputFormat {
    let name = "tmux"
    let summary = "the line for tmux's status"
    let command = FormatCommand.status
    func render(_ result: MergeResult, table: String) -> [UInt8] { Array((StatusBar.tmux(result) + "\n").utf8) }
}

/// `--format waybar`: waybar's custom-module JSON.
struct WaybarFormat: OutputFormat {
    let name = "waybar"
    let summary = "waybar's custom-module JSON"
    let command = FormatCommand.status
    func render(_ result: MergeResult, table: String) -> [UInt8] { Array((StatusBar.waybar(result) + "\n").utf8) }
}
