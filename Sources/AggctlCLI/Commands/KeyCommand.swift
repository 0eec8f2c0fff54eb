import Portable
import Privacy

/// `aggctl key new [--out FILE]`: a new record key for a store's sealed records (docs/privacy.md).
enum KeyCommand {
    static let name = "key"
    static let summary = "Make a new key for sealed records: aggctl key new [--out FILE]; prints its key id."
    static let out = FlagSpec.option(
        "out", "FILE",
        "where to write the key (mode 0600; never over an existing file); default: next to the config file")
    static let details = """
        Give the key file to every machine that publishes to or reads the store, by a channel the store's \
        server does not see, and name it with --key-file (or key-file in the config file). Without --out the \
        key goes to store.key beside the config file ($XDG_CONFIG_HOME/aggctl, else ~/.config/aggctl).
        """
    static let command = Command(
        name: name, summary: summary, flags: [out], details: details, takesArgument: true, argumentName: "new"
    ) { flags, context in
        guard flags.argument == "new" else {
            throw UsageError("'\(flags.argument ?? "")' is not a key command; expected: aggctl key new", command: name)
        }
        let path = flags.value(out) ?? (context.configFile.dropLast("/config".count) + "/store.key")
        guard !path.isEmpty else { throw UsageError("--out: '' is not a file path", command: name) }
        do {
            let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
            if !folder.isEmpty && flags.value(out) == nil { try FileSystem.createFolders(folder) }
            let key = try RecordKey.generate()
            try key.write(to: path)
            context.console.output.write("\(key.id)\n")
            context.console.note("wrote \(key) to '\(path)' (mode 0600); give it to every machine of the store")
        } catch let error as KeyFileError {
            throw CommandFailure(error.description)
        } catch let error as RecordCipher.Unavailable {
            throw CommandFailure(error.message)
        }
        return .success
    }
}
