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

    /// The state folder's table: `{"asOf", "source", "models": {LiteLLM's shape}}`.
    static func kept(_ data: Data, origin: String) throws -> PriceTable {
        struct Kept: Decodable {
            var asOf: String
            var source: String
        }
        struct Models: Decodable {
            var models: JSONFragment
        }
        guard let header = try? JSONDecoder().decode(Kept.self, from: data),
            let models = try? JSONDecoder().decode(Models.self, from: data)
        else {
            throw PriceTableError(message: "\(origin) is not a table `aggctl prices update` wrote")
        }
        let parsed = try parse(models.models.data, origin: origin)
        return PriceTable(models: parsed.models, asOf: header.asOf, source: header.source)
    }

    /// The state folder's form of `models` (LiteLLM's JSON, already cut), with its date and source.
    public static func keptDocument(models: Data, asOf: String, source: String) throws -> Data {
        let header = try JSONEncoder().encode(["asOf": asOf, "source": source])
        // {"asOf":..., "source":..., "models": <the object>}
        var document = Data(header.dropLast())
        document.append(contentsOf: Array(#","models":"#.utf8))
        document.append(models)
        document.append(UInt8(ascii: "}"))
        return document
    }
}

/// A JSON value kept as its bytes, to be parsed by its own reader.
struct JSONFragment: Decodable {
    var data: Data

    init(from decoder: any Decoder) throws {
        // Re-encoding what Foundation decoded keeps each value; the table's reader reads it again.
        let value = try decoder.singleValueContainer().decode([String: [String: Double]].self)
        data = try JSONEncoder().encode(value)
    }
}

extension PriceTable {
    /// The state folder's file made from a whole LiteLLM table (`prices update`): every model with an
    /// input and an output rate, only the fields aggctl reads.
    ///
    /// - Returns: the file's bytes, how many models it keeps, and the values it dropped.
    /// - Throws: `PriceTableError` when `data` is not a table of models or has no priced model.
    public static func keptDocument(
        fromLiteLLM data: Data, origin: String, asOf: String, source: String
    ) throws -> (document: Data, models: Int, problems: [String]) {
        let entries: [String: Entry]
        do {
            entries = try JSONDecoder().decode([String: Entry].self, from: data)
        } catch {
            throw PriceTableError(message: "\(origin) is not a price table: expected a JSON object of models")
        }
        var kept: [String: [String: Double]] = [:]
        var problems: [String] = []
        // LiteLLM's file opens with `sample_spec`, which documents the fields, not a model.
        for (name, entry) in entries where name != "sample_spec" {
            for field in entry.refused.sorted() {
                problems.append("\(origin): \(name).\(field) is not a price per token")
            }
            guard entry.rates["input_cost_per_token"] != nil, entry.rates["output_cost_per_token"] != nil else {
                continue
            }
            kept[name] = entry.rates
        }
        guard !kept.isEmpty else { throw PriceTableError(message: "\(origin) prices no model") }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (
            try keptDocument(models: encoder.encode(kept), asOf: asOf, source: source), kept.count, problems.sorted()
        )
    }
}
