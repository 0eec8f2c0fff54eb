import Portable

extension PriceTable {
    /// The file `prices update` keeps in the state folder, and the user's overrides in the config folder.
    public static let fileName = "prices.json"

    /// The table a run prices with: the one `prices update` kept in `stateFolder` (else the bundled
    /// copy), with the user's `configFolder/prices.json` (LiteLLM's shape) over single models. A file
    /// that cannot be read is a problem line and left out: the run prices with what remains.
    public static func load(stateFolder: String?, configFolder: String?) -> (table: PriceTable, problems: [String]) {
        var problems: [String] = []
        var table = bundled
        if let stateFolder, let data = FileSystem.contents(of: stateFolder + "/" + fileName) {
            do {
                table = try kept(data, origin: "'\(stateFolder)/\(fileName)'")
            } catch {
                problems.append("\(error); pricing with the bundled table")
            }
        }
        if let configFolder, let data = FileSystem.contents(of: configFolder + "/" + fileName) {
            do {
                let overrides = try parse(data, origin: "'\(configFolder)/\(fileName)'")
                problems += overrides.problems
                for (name, price) in overrides.models {
                    table.models[name] = price
                    table.overridden.insert(name)
                }
            } catch {
                problems.append("\(error); no overrides used")
            }
        }
        return (table, problems)
    }

    /// The state folder's table, as `prices update` writes it: its date, its source, and the models'
    /// rates in LiteLLM's shape (read as hostile as any table: a value that is not a price is left out).
    struct Kept: Codable {
        var asOf: String
        var source: String
        var models: [String: [String: Double]]
    }

    static func kept(_ data: Data, origin: String) throws -> PriceTable {
        struct Read: Decodable {
            var asOf: String
            var source: String
            var models: [String: Entry]
        }
        guard let kept = try? JSONDecoder().decode(Read.self, from: data) else {
            throw PriceTableError(message: "\(origin) is not a table `aggctl prices update` wrote")
        }
        let rates = rates(of: kept.models, origin: origin).rates
        return PriceTable(models: rates.mapValues(price), asOf: kept.asOf, source: kept.source)
    }

    /// The state folder's file made from a whole LiteLLM table (`prices update`): every model with an
    /// input and an output rate, only the fields aggctl reads.
    ///
    /// - Returns: the file's bytes, how many models it keeps, and the values it dropped.
    /// - Throws: `PriceTableError` when `data` is not a table of models or has no priced model.
    public static func keptDocument(
        fromLiteLLM data: Data, origin: String, asOf: String, source: String
    ) throws -> (document: Data, models: Int, problems: [String]) {
        let read = try rates(data, origin: origin)
        guard !read.rates.isEmpty else { throw PriceTableError(message: "\(origin) prices no model") }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let document = try encoder.encode(Kept(asOf: asOf, source: source, models: read.rates))
        return (document, read.rates.count, read.problems)
    }
}
