/// Where a setting's value came from, named as the user wrote it, so that the error for a bad value
/// points at the right place: `--stale-after`, `AGGCTL_STORE`, or `config line 3 (stale-after)`.
enum OptionSource: Equatable, Sendable, CustomStringConvertible {
    case flag(String)
    case environment(String)
    case config(key: String, line: Int)

    var description: String {
        switch self {
        case .flag(let name): return "--\(name)"
        case .environment(let name): return name
        case .config(let key, let line): return "config line \(line) (\(key))"
        }
    }
}

/// A setting's text and where it came from, before it is converted into its typed value.
struct Setting: Equatable, Sendable {
    var value: String
    var source: OptionSource
}
