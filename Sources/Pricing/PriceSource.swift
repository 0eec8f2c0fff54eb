import Portable

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where one run's prices come from: the table is read on first use (a publish that finds nothing new
/// prices nothing), and what it is made of is told without reading it (`fingerprint`), so that a kept
/// scan priced by another table is read again.
public final class PriceSource: @unchecked Sendable {
    public let stateFolder: String?
    public let configFolder: String?
    private let lock = Lock()
    private var loaded: (table: PriceTable, problems: [String])?
    /// Each model's price as found, by the name a log gives it: a log names a handful of models over tens
    /// of thousands of responses, and finding one (its cloud's additions taken off) was most of reading.
    private var found: [String: ModelPrice?] = [:]

    public init(stateFolder: String?, configFolder: String?) {
        self.stateFolder = stateFolder
        self.configFolder = configFolder
    }

    /// The bundled table alone (tests, and readers with no state or config folder).
    public static let bundled = PriceSource(stateFolder: nil, configFolder: nil)

    /// The bundled table's date, and each price file's size and modification time.
    public var fingerprint: String {
        var parts = ["bundled " + BundledPrices.asOf]
        for folder in [stateFolder, configFolder].compactMap({ $0 }) {
            var info = stat()
            if stat(folder + "/" + PriceTable.fileName, &info) == 0 {
                #if canImport(Darwin)
                    let modified = info.st_mtimespec
                #else
                    let modified = info.st_mtim
                #endif
                parts.append("\(info.st_size)@\(modified.tv_sec).\(modified.tv_nsec)")
            }
        }
        return parts.joined(separator: " ")
    }

    public var table: PriceTable { load().table }

    /// The date of the table costs come from: the bundled copy's without reading any table when `prices
    /// update` kept none (overrides change single models, not the table's date).
    public var asOf: String {
        lock.lock()
        let read = loaded
        lock.unlock()
        if let read { return read.table.asOf }
        guard let stateFolder, access(stateFolder + "/" + PriceTable.fileName, F_OK) == 0 else {
            return BundledPrices.asOf
        }
        return table.asOf
    }

    /// The lines a run warns with about its price files (a damaged overrides file).
    public var problems: [String] { load().problems }

    /// The same, when the table was read at all (a run that priced nothing need not read it to warn).
    public var problemsIfRead: [String] {
        lock.lock()
        defer { lock.unlock() }
        return loaded?.problems ?? []
    }

    /// The price of `model` as a log names it; nil when unpriced.
    public func price(of model: String) -> ModelPrice? {
        lock.lock()
        let known = found[model]
        lock.unlock()
        if let known { return known }
        let price = table.price(of: model)?.price
        lock.lock()
        if found.count < 4096 { found[model] = price }
        lock.unlock()
        return price
    }

    private func load() -> (table: PriceTable, problems: [String]) {
        lock.lock()
        defer { lock.unlock() }
        if let loaded { return loaded }
        let made = PriceTable.load(stateFolder: stateFolder, configFolder: configFolder)
        loaded = made
        return made
    }
}
