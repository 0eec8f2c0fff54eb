import Portable

/// Prices by model: the bundled copy of LiteLLM's table (`BundledPrices`), or the one `aggctl prices
/// update` kept in the state folder, with a user's overrides over single models (docs/prices.md).
///
/// A model is found by its exact id after what the cloud that served it adds is removed, then without a
/// trailing date: never by a prefix, so `claude-opus-4` never prices `claude-opus-4-6`. A model found
/// nowhere is unpriced (nil), never free.
public struct PriceTable: Sendable {
    public var models: [String: ModelPrice]
    /// When the table was taken (`YYYY-MM-DD`).
    public var asOf: String
    /// Where it came from, for `prices show`.
    public var source: String
    /// The models a user's overrides file set (shown as such).
    public var overridden: Set<String> = []

    public init(models: [String: ModelPrice], asOf: String, source: String) {
        self.models = models
        self.asOf = asOf
        self.source = source
    }

    /// The copy carried in the binary.
    public static let bundled: PriceTable = {
        // The bundled copy is written by script/prices-cut and read in tests: it always parses.
        let models = (try? parse(Data(BundledPrices.json.utf8), origin: "the bundled table").models) ?? [:]
        return PriceTable(models: models, asOf: BundledPrices.asOf, source: "bundled: " + BundledPrices.source)
    }()

    /// The price of `model` as a log names it, and the table's name it was found under; nil when
    /// unpriced.
    public func price(of model: String) -> (name: String, price: ModelPrice)? {
        for candidate in Self.candidates(for: model) {
            if let price = models[candidate] { return (candidate, price) }
        }
        return nil
    }

    /// The names `model` is looked up under, in order: as given, without what the cloud added, then
    /// without a trailing `-YYYYMMDD`.
    static func candidates(for model: String) -> [String] {
        var names = [model]
        let plain = normalized(model)
        if plain != model { names.append(plain) }
        if let undated = withoutDate(plain) { names.append(undated) }
        return names
    }

    /// `model` without an OpenRouter-style `vendor/` path, Bedrock's region and `anthropic.` prefixes and
    /// its `-v1:0` suffix, and Vertex's `@date`.
    public static func normalized(_ model: String) -> String {
        var name = Substring(model)
        if let slash = name.lastIndex(of: "/") { name = name[name.index(after: slash)...] }
        if let at = name.firstIndex(of: "@") { name = name[..<at] }
        for region in ["us.", "eu.", "apac.", "global.", "jp.", "au.", "us-gov."]
        where name.hasPrefix(region + "anthropic.") {
            name = name.dropFirst(region.count)
        }
        if name.hasPrefix("anthropic.") { name = name.dropFirst("anthropic.".count) }
        // Bedrock's version suffix: -v1:0, -v2:0, or -v1 alone (ccusage's pricing tests resolve both).
        if let dash = name.lastIndex(of: "-"), isVersionSuffix(name[name.index(after: dash)...]) {
            name = name[..<dash]
        }
        return String(name)
    }

    /// `v1`, `v1:0`: `v`, digits, and optionally `:` and digits.
    private static func isVersionSuffix(_ text: Substring) -> Bool {
        guard text.first == "v" else { return false }
        let parts = text.dropFirst().split(separator: ":", omittingEmptySubsequences: false)
        return (1...2).contains(parts.count)
            && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { ("0"..."9").contains($0) } }
    }

    /// `model` without a trailing `-YYYYMMDD`, when it has one.
    static func withoutDate(_ model: String) -> String? {
        let utf8 = Array(model.utf8)
        guard utf8.count > 9, utf8[utf8.count - 9] == UInt8(ascii: "-"),
            utf8[(utf8.count - 8)...].allSatisfy({ (0x30...0x39).contains($0) })
        else { return nil }
        return String(decoding: utf8[..<(utf8.count - 9)], as: UTF8.self)
    }
}
