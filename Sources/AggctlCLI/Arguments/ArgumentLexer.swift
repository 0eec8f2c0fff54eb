/// One command-line word, classified but not yet validated.
enum ArgumentToken: Equatable {
    /// `--name` or `--name=value`.
    case flag(name: String, value: String?)
    /// `-h` and other single-dash words (only `-h` is accepted later).
    case shortFlag(String)
    /// Anything else, including `-` (stdin) and every word after `--`.
    case positional(String)
}

/// The first stage of argument parsing: splits words into tokens, knowing nothing of commands or flags.
enum ArgumentLexer {
    static func tokens(_ arguments: [String]) -> [ArgumentToken] {
        var tokens: [ArgumentToken] = []
        var onlyPositionals = false
        for argument in arguments {
            if onlyPositionals {
                tokens.append(.positional(argument))
            } else if argument == "--" {
                onlyPositionals = true
            } else if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                if let equals = body.firstIndex(of: "=") {
                    tokens.append(
                        .flag(name: String(body[..<equals]), value: String(body[body.index(after: equals)...])))
                } else {
                    tokens.append(.flag(name: String(body), value: nil))
                }
            } else if argument.hasPrefix("-") && argument.count > 1 {
                tokens.append(.shortFlag(argument))
            } else {
                tokens.append(.positional(argument))
            }
        }
        return tokens
    }
}
