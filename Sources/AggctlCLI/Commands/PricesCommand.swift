import HTTP
import Portable
import Pricing
import Serialization

/// `aggctl prices show [MODEL]` and `aggctl prices update [--from FILE|URL]` (docs/prices.md).
enum PricesCommand {
    static let name = "prices"
    static let summary =
        "Show what a model costs, or update the price table: aggctl prices show [MODEL] | update [--from FILE|URL]."
    static let from = FlagSpec.option(
        "from", "FILE|URL", "update: LiteLLM's model price table to keep (default: LiteLLM's published file)")
    static let details = """
        Prices are LiteLLM's model table, in US dollars per million tokens here: a copy cut to the coding \
        agents' models is in aggctl, `update` keeps a newer one in the state directory, and \
        $XDG_CONFIG_HOME/aggctl/prices.json (the same shape) overrides single models. A model is matched by \
        its exact id, after a cloud's additions (Bedrock's us.anthropic. and -v1:0, Vertex's @date, a \
        vendor/ path) and then a trailing date are removed; a model found nowhere is unpriced. Exit 1 when \
        MODEL is unpriced or the table cannot be had.
        """
    static let publishedTable =
        "https://raw.githubusercontent.com/BerriAI/litellm/main/model_prices_and_context_window.json"

    static let command = Command(
        name: name, summary: summary, flags: [from], details: details, takesArgument: true,
        argumentName: "show [MODEL] | update", maximumArguments: 2
    ) { flags, context in
        switch (flags.arguments.first, flags.arguments.count) {
        case ("show", _):
            if flags.value(from) != nil { throw UsageError("--from is for 'prices update'", command: name) }
            return try show(model: flags.arguments.dropFirst().first, context: context)
        case ("update", 1):
            return try update(from: flags.value(from) ?? publishedTable, context: context)
        default:
            throw UsageError(
                "'\(flags.arguments.joined(separator: " "))' is not a prices command; expected: aggctl prices show "
                    + "[MODEL] or aggctl prices update [--from FILE|URL]", command: name)
        }
    }

    static func show(model: String?, context: RunContext) throws -> ExitStatus {
        let prices = context.prices
        for problem in prices.problems { context.console.warn(problem) }
        let table = prices.table
        let origin = "prices as of \(table.asOf) (\(table.source))"
        guard let model else {
            context.console.print(origin + ", US dollars per million tokens:")
            var rows = TextTable(headers: [
                "MODEL", "INPUT", "OUTPUT", "CACHE WRITE", "WRITE 1H", "CACHE READ", "OVER 200K",
            ])
            for name in table.models.keys.sorted() {
                let price = table.models[name]!
                let cells =
                    [name + (table.overridden.contains(name) ? " (yours)" : "")] + figures(price.rates)
                    + [price.longPrompt == nil ? "-" : "yes"]
                rows.rows.append(cells.map { TextTable.Cell($0) })
            }
            context.console.printRendered(rows.render(color: context.console.usesColor))
            return .success
        }
        guard let found = table.price(of: model) else {
            throw CommandFailure("'\(model)' is unpriced: no model of that name in the \(origin)")
        }
        let whence = table.overridden.contains(found.name) ? "your prices.json" : origin
        context.console.print("\(model): priced as '\(found.name)' from \(whence), US dollars per million tokens")
        var rows = TextTable(headers: ["PROMPT", "INPUT", "OUTPUT", "CACHE WRITE", "WRITE 1H", "CACHE READ"])
        rows.rows.append((["up to 200k"] + figures(found.price.rates)).map { TextTable.Cell($0) })
        if let long = found.price.longPrompt {
            rows.rows.append((["over 200k"] + figures(long)).map { TextTable.Cell($0) })
        }
        context.console.printRendered(rows.render(color: context.console.usesColor))
        return .success
    }

    static func figures(_ rates: ModelPrice.Rates) -> [String] {
        [rates.input, rates.output, rates.cacheWrite, rates.cacheWriteHour, rates.cacheRead].map {
            // Per million, to a millionth of a dollar: 3e-7 a token is 0.3, not 0.29999999999999993.
            (($0 * 1_000_000) * 1_000_000).rounded() / 1_000_000
        }.map {
            $0.plainText
        }
    }

    static func update(from source: String, context: RunContext) throws -> ExitStatus {
        let data: Data
        let shown: String
        if source.hasPrefix("http://") || source.hasPrefix("https://") {
            // Parsed, not taken as text: a URL without a host, or with spaces or controls, is refused.
            guard let components = URLComponents(string: source), let host = components.host, !host.isEmpty,
                let url = components.url?.absoluteString
            else {
                throw UsageError("--from: '\(HTTPRequest.displayURL(source))' is not a URL", command: name)
            }
            // Shown by its origin and path: a query may carry a token.
            shown = HTTPRequest.origin(of: url) + components.percentEncodedPath
            let answer: HTTPResponse
            do {
                answer = try context.httpClient().send(
                    HTTPRequest(url: url, maximumBodySize: 32 * 1024 * 1024, shownAs: shown))
            } catch {
                throw CommandFailure("cannot fetch the price table from \(shown): \(error)")
            }
            guard answer.status == 200 else {
                throw CommandFailure("cannot fetch the price table from \(shown): HTTP \(answer.status)")
            }
            data = answer.body
        } else {
            guard let contents = FileSystem.contents(of: source) else {
                throw CommandFailure("cannot read the price table '\(source)'")
            }
            (data, shown) = (contents, "'\(source)'")
        }
        let asOf = RFC3339.utcDay(context.clock())
        let kept: (document: Data, models: Int, problems: [String])
        do {
            kept = try PriceTable.keptDocument(fromLiteLLM: data, origin: shown, asOf: asOf, source: shown)
        } catch let error as PriceTableError {
            throw CommandFailure(error.message)
        }
        for problem in kept.problems.prefix(10) { context.console.warn(problem) }
        let path = context.stateDirectory + "/" + PriceTable.fileName
        do {
            try AtomicFile.writePrivate(kept.document, to: path)
        } catch {
            throw CommandFailure("cannot keep the price table: \(error)")
        }
        context.console.print("kept the prices of \(kept.models) models from \(shown), as of \(asOf), in '\(path)'")
        return .success
    }
}
