import Foundation
import TestSupport
import Testing

let realShellsMissing = ["bash", "zsh", "fish", "tmux"].filter { !RequiredTool.available($0) }
let realShellsRun = realShellsMissing.isEmpty || ProcessInfo.processInfo.environment["CI"] == "true"

/// The completions as a person meets them: a real bash, zsh and fish in a pseudo-terminal (a private
/// tmux server), keys typed, the screen read. A stubbed `_arguments` once hid that zsh completed nothing
/// after the subcommand.
@Suite(.enabled(if: realShellsRun, "needs bash, zsh, fish and tmux (Debian bash, zsh, fish, tmux)"))
struct RealShellCompletionTests {
    let root = TemporaryDirectory("aggctl-shells")

    /// The folder of the binary under test, put first on PATH.
    var binaries: String { (BinaryRun.binary as NSString).deletingLastPathComponent }

    func script(_ shell: String) throws -> String {
        let run = try BinaryRun.run(
            ["completions", shell], environment: ["HOME": root.file("home"), "PATH": "/usr/bin:/bin"])
        try #require(run.status == 0, "\(run.errors)")
        if shell == "zsh" { return try root.write("zsh/_aggctl", run.output) }
        return try root.write("aggctl.\(shell)", run.output)
    }

    @Test("zsh completes a command's flags after the subcommand, and completions' shells")
    func zsh() throws {
        try #require(realShellsMissing.isEmpty, "missing under CI: \(realShellsMissing)")
        _ = try script("zsh")
        let terminal = try Terminal(root: root, command: "zsh -f", path: binaries)
        defer { terminal.close() }
        try terminal.type(
            "PS1='> '; fpath=('\(root.file("zsh"))' $fpath); autoload -U compinit; compinit -u -D", "Enter")
        try terminal.type("aggctl status --for", "Tab")
        try terminal.waitFor { $0.contains("> aggctl status --format") }
        try terminal.type("C-u", "aggctl completions ", "Tab")
        try terminal.waitFor { $0.contains("bash  fish  zsh") }
    }

    @Test("bash offers nothing after a flag that takes a typed value, and the shells after completions")
    func bash() throws {
        try #require(realShellsMissing.isEmpty, "missing under CI: \(realShellsMissing)")
        let path = try script("bash")
        let terminal = try Terminal(root: root, command: "bash --norc --noprofile", path: binaries)
        defer { terminal.close() }
        try terminal.type("PS1='> '; source '\(path)'", "Enter")
        try terminal.type("aggctl status --for", "Tab")
        try terminal.waitFor { $0.contains("> aggctl status --format") }
        try terminal.type("C-u")
        for typed in ["aggctl devices --forget ", "aggctl status --now "] {
            // The marker typed after the two tabs shows once bash has handled them.
            try terminal.type(typed, "Tab", "Tab", "#typed")
            let screen = try terminal.waitFor { $0.contains(typed + "#typed") }
            #expect(!screen.contains("--json"), "flags offered after '\(typed)':\n\(screen)")
            try terminal.type("C-u")
        }
        try terminal.type("aggctl completions ", "Tab", "Tab")
        try terminal.waitFor { $0.contains("bash") && $0.contains("fish") && $0.contains("zsh") }
    }

    @Test("fish completes a command's flags and completions' shells")
    func fish() throws {
        try #require(realShellsMissing.isEmpty, "missing under CI: \(realShellsMissing)")
        let path = try script("fish")
        let terminal = try Terminal(root: root, command: "fish --no-config", path: binaries)
        defer { terminal.close() }
        try terminal.type("function fish_prompt; echo '> '; end; source '\(path)'", "Enter")
        try terminal.type("aggctl status --for", "Tab")
        try terminal.waitFor { $0.contains("aggctl status --format") }
        try terminal.type("C-u", "aggctl completions ", "Tab")
        try terminal.waitFor { $0.contains("bash") && $0.contains("fish") && $0.contains("zsh") }
    }
}

/// One shell in a private tmux server: keys typed with `send-keys`, the screen read with `capture-pane`.
struct Terminal {
    let socket: String
    let environment: [String: String]

    init(root: TemporaryDirectory, command: String, path: String) throws {
        socket = root.file("tmux-\(UUID().uuidString.prefix(8))")
        environment = ["HOME": root.file("home"), "PATH": "\(path):/usr/bin:/bin", "TERM": "xterm", "LANG": "C.UTF-8"]
        try FileManager.default.createDirectory(atPath: root.file("home"), withIntermediateDirectories: true)
        // The server tmux starts lives on, and would keep every descriptor it inherited open: the pipes of
        // this test run's other children among them, whose readers would then wait for it for ever.
        // Python starts it with none but the three standard ones, all /dev/null.
        let launcher = """
            import subprocess, sys
            sys.exit(subprocess.run(["/usr/bin/tmux", "-S", sys.argv[1], "-f", "/dev/null", "new-session", "-d", \
            "-x", "160", "-y", "40", sys.argv[2]], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, \
            stderr=subprocess.DEVNULL, close_fds=True).returncode)
            """
        let started = try BinaryRun.run(
            ["-c", launcher, socket, command], environment: environment, executable: "/usr/bin/python3", timeout: 20)
        try #require(started.status == 0, "tmux did not start: \(started.errors)")
    }

    func tmux(_ arguments: [String]) throws -> BinaryRun {
        try BinaryRun.run(
            ["-S", socket] + arguments, environment: environment, executable: "/usr/bin/tmux", timeout: 20)
    }

    /// Types `keys`: text as it is, and tmux key names (`Tab`, `Enter`, `C-u`: clear the line) as keys.
    func type(_ keys: String...) throws {
        for key in keys {
            let named = ["Tab", "Enter", "C-u"].contains(key)
            _ = try tmux(["send-keys", "-t", "0"] + (named ? [key] : ["-l", key]))
        }
    }

    /// The screen once `ready` holds for it; a recorded issue after 15 s, with what the screen showed.
    /// Each look is a `capture-pane`: the wait is for the shell to have drawn, not for time to pass.
    @discardableResult
    func waitFor(_ ready: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(15)
        var screen = ""
        while Date() < deadline {
            screen = try tmux(["capture-pane", "-p", "-t", "0"]).output
            if ready(screen) { return screen }
        }
        Issue.record("the screen never showed what was expected:\n\(screen)")
        return screen
    }

    /// Ends the shell and the server: `kill-server` answers before the server has gone (and it was seen
    /// to stay), so both are also killed by their ids, which the server tells.
    func close() {
        let ids = (try? tmux(["display-message", "-p", "-t", "0", "#{pid} #{pane_pid}"]))?.output ?? ""
        _ = try? tmux(["kill-server"])
        for id in ids.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap({ Int32($0) }) where id > 1 {
            kill(id, SIGKILL)
        }
    }
}
