/// A flag a command accepts.
struct FlagSpec: Sendable {
    var name: String
    /// Shown in help and messages: `--store S`.
    var valueName: String?
    var repeatable = false
    var help: String
    /// The words its value may be, for completions (nil: anything).
    var choices: [String]? = nil

    var takesValue: Bool { valueName != nil }

    static func option(
        _ name: String, _ valueName: String, repeatable: Bool = false, choices: [String]? = nil, _ help: String
    ) -> FlagSpec {
        FlagSpec(name: name, valueName: valueName, repeatable: repeatable, help: help, choices: choices)
    }

    static func toggle(_ name: String, _ help: String) -> FlagSpec {
        FlagSpec(name: name, valueName: nil, help: help)
    }

    var synopsis: String { valueName.map { "--\(name) \($0)" } ?? "--\(name)" }
}

/// The flags given to one command, checked against its specs but not yet converted to typed options.
struct ParsedFlags: Sendable {
    private(set) var values: [String: [String]] = [:]
    private(set) var toggles: Set<String> = []
    var wantsHelp = false
    /// The words a command that takes them was given, in order (`prices show MODEL`).
    private(set) var arguments: [String] = []
    /// The first of them: the one word of a command that takes one.
    var argument: String? { arguments.first }

    // Read by the flag's declaration, not its name: a flag a command does not declare cannot be read
    // by mistake, and a misspelt one does not compile.
    func value(_ spec: FlagSpec) -> String? { values[spec.name]?.last }
    func all(_ spec: FlagSpec) -> [String] { values[spec.name] ?? [] }
    func isSet(_ spec: FlagSpec) -> Bool { toggles.contains(spec.name) }

    /// The flag's value with where it came from.
    func setting(_ spec: FlagSpec) -> Setting? { value(spec).map { Setting(value: $0, source: .flag(spec.name)) } }

    /// The second stage of argument parsing: matches tokens to `specs`.
    ///
    /// - Throws: `UsageError` for an unknown flag, a missing value, a value given to a toggle, a flag
    ///   given twice that is not repeatable, or a stray positional word.
    static func parse(
        _ tokens: [ArgumentToken], specs: [FlagSpec], command: String, takesArgument: Bool = false,
        maximumArguments: Int = 1
    ) throws -> ParsedFlags {
        var parsed = ParsedFlags()
        var index = 0
        func specNamed(_ name: String) throws -> FlagSpec {
            if name == "help" { return .toggle("help", "") }
            guard let spec = specs.first(where: { $0.name == name }) else {
                let nearest = NearestName.of(name, among: specs.map(\.name)).map { "; did you mean '--\($0)'?" } ?? ""
                throw UsageError("unknown flag '--\(name)' for '\(command)'\(nearest)", command: command)
            }
            return spec
        }
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            switch token {
            case .shortFlag("-h"):
                parsed.wantsHelp = true
            case .shortFlag(let word):
                throw UsageError("unknown flag '\(word)' for '\(command)'", command: command)
            case .positional(let word):
                guard takesArgument, parsed.arguments.count < maximumArguments else {
                    throw UsageError("unexpected argument '\(word)' for '\(command)'", command: command)
                }
                parsed.arguments.append(word)
            case .flag(let name, let inlineValue):
                let spec = try specNamed(name)
                if name == "help" {
                    parsed.wantsHelp = true
                    continue
                }
                guard spec.takesValue else {
                    if inlineValue != nil {
                        throw UsageError("--\(name) takes no value", command: command)
                    }
                    parsed.toggles.insert(name)
                    continue
                }
                var value = inlineValue
                if value == nil, index < tokens.count {
                    switch tokens[index] {
                    case .positional(let next):
                        value = next
                        index += 1
                    case .shortFlag(let next) where Double(next) != nil:
                        // `--max-skew -5` is a bad value to report as such, not a missing one.
                        value = next
                        index += 1
                    default:
                        break
                    }
                }
                guard let value else {
                    throw UsageError("--\(name) needs a value: \(spec.synopsis)", command: command)
                }
                if !spec.repeatable && parsed.values[name] != nil {
                    throw UsageError("--\(name) is given more than once", command: command)
                }
                parsed.values[name, default: []].append(value)
            }
        }
        return parsed
    }
}
