/// `aggctl manpage`: the manual page in mdoc, for `man -l` or to install as `aggctl.1`.
enum ManpageCommand {
    static let name: String = "manpage"
    static let summary = "Print the manual page (mdoc): aggctl manpage > aggctl.1; man -l aggctl.1."
    static let command: Command = Command(name: name, summary: summary, flags: []) { _, context in
        context.console.output.write(ManualPage.render(commands: Aggctl.commands, version: Aggctl.version))
        return .success
    }
}
