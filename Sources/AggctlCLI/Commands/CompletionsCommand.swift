/// `aggctl completions SHELL`: shell completions made from the commands' declarations.
enum CompletionsCommand {
    static let name: String = "completions"
    static let summary = "Print shell completions: aggctl completions bash|zsh|fish."
    static let details = """
        bash:  aggctl completions bash > ~/.local/share/bash-completion/completions/aggctl
        zsh:   aggctl completions zsh > "${fpath[1]}/_aggctl"   (or source it after compinit)
        fish:  aggctl completions fish > ~/.config/fish/completions/aggctl.fish
        """
    static let command: Command = Command(
        name: name, summary: summary, flags: [], details: details, takesArgument: true, argumentName: "bash|zsh|fish"
    ) {
        flags, context in
        guard let shell = flags.argument else {
            throw UsageError("completions needs a shell: bash, zsh or fish", command: name)
        }
        guard let script = ShellCompletions.script(for: shell, commands: Aggctl.commands) else {
            throw UsageError(
                "completions: '\(shell)' is not a shell aggctl completes; expected bash, zsh or fish", command: name)
        }
        context.console.output.write(script)
        return .success
    }
}
