import Aggregator
import Collectors
import HTTP
import Portable
import Pricing
import Snapshots
import Stores
import TextSafety

/// `aggctl publish`: write this machine's record into the store.
enum PublishCommand {
    static let name: String = "publish"
    static let summary = "Collect this machine's usage and write its record into the store (atomically)."
    static let deviceIDFlag = FlagSpec.option(
        "device-id", "ID", "this machine's id (default: created once in the state directory)")
    static let deviceNameFlag = FlagSpec.option(
        "device-name", "N", "a human name for this machine (default: the host name)")
    static let from = FlagSpec.option(
        "from", "FILE", repeatable: true,
        "read provider entries from FILE ('-' for stdin): aggctl JSON or `codexbar usage --format json`")
    static let source = FlagSpec.option(
        "source", "NAME[:PATH]", repeatable: true, choices: CollectorRegistry.standard.names,
        "a built-in collector: "
            + CollectorRegistry.standard.kinds.filter { !$0.isEndpoint }.map(\.name).joined(separator: ", ")
            + " (this machine's logs), "
            + CollectorRegistry.standard.kinds.filter(\.isEndpoint).map(\.name)
            .joined(separator: ", ") + " (usage endpoints)")
    static let dryRun = FlagSpec.toggle(
        "dry-run", "print the record instead of writing it; writes nothing at all (no store, id or state needed)")
    static let now = FlagSpec.option("now", "DATE", "write the record as if it were DATE (RFC 3339): its generatedAt")
    static let flags = [
        CommonFlags.store, CommonFlags.keyFile, CommonFlags.requireEncrypted, deviceIDFlag, deviceNameFlag, from,
        source, dryRun, now,
    ]
    static let details = """
        Input is read strictly: an entry that does not decode is an error naming the file and the entry, and
        nothing is written. Exit 1 when input cannot be read or the store cannot be written.
        codex-api and claude-api use the tokens Codex (auth.json) and Claude Code (.credentials.json or
        CLAUDE_CODE_OAUTH_TOKEN) keep; a failure becomes the entry's error ("signed out", "could not read
        usage"), not a failed run. Entries of one provider and account from several sources are combined.
        """ + "\n"
        + CollectorRegistry.standard.kinds.map { Command.wrapped("\($0.name): \($0.summary); PATH: \($0.path).") }
        .joined(separator: "\n")

    static let command = Command(name: name, summary: summary, flags: flags, details: details) { flags, context in
        try run(flags, context: context)
    }

    /// `publish`'s options, settled in one throwing step before any file is read, so a typo never costs
    /// a half-done run.
    struct Options {
        var inputs: [String]
        var sources: [Collector]
        /// What the sources price responses by (read only when one needs a price).
        var prices: PriceSource
        /// Needed to write; a dry run writes nothing and needs none (one given is still checked).
        var location: StoreLocation?
        var deviceID: DeviceID?
        var deviceName: String?
        var now: Date
        var dryRun: Bool

        init(_ flags: ParsedFlags, context: RunContext) throws {
            dryRun = flags.isSet(PublishCommand.dryRun)
            inputs = flags.all(PublishCommand.from)
            // A dry run keeps no collector state: the logs are read afresh, and nothing is written.
            let stateFolder = dryRun ? nil : context.stateDirectory + "/collectors"
            // The config file's `source` lines (what `aggctl init` wrote) stand in when no flag names input.
            let prices = context.prices
            self.prices = prices
            var sourceSettings = flags.all(PublishCommand.source).map { Setting(value: $0, source: .flag("source")) }
            if sourceSettings.isEmpty, inputs.isEmpty { sourceSettings = context.configuration.settings("source") }
            sources = try sourceSettings.map {
                try collector(
                    $0,
                    context: CollectorContext(
                        environment: context.environment, stateFolder: stateFolder,
                        statusLineFolder: context.stateDirectory + "/collectors",
                        zones: Zones.machine(environment: context.environment),
                        readerVersion: "aggctl \(Aggctl.version)",
                        httpClient: { try context.httpClient() }, prices: prices))
            }
            guard !inputs.isEmpty || !sources.isEmpty else {
                throw UsageError(
                    "publish needs --from FILE ('-' for stdin) or --source NAME[:PATH] (or 'source = NAME' lines in "
                        + "'\(context.configFile)'; aggctl init writes them)", command: name)
            }
            let hasStore = context.setting(CommonFlags.store, flags: flags, environmentName: "AGGCTL_STORE") != nil
            location = dryRun && !hasStore ? nil : try context.storeLocation(flags, command: name)
            deviceID = try context.setting(deviceIDFlag, flags: flags).map(ValueParsers.deviceID)
            let named = context.setting(deviceNameFlag, flags: flags)
            if let named, SafeText.hasControlCharacters(named.value) {
                throw UsageError(
                    "\(named.source): '\(SafeText.line(named.value))' holds control characters; expected one line of text",
                    command: name)
            }
            deviceName = named?.value
            now = try flags.setting(PublishCommand.now).map(ValueParsers.date) ?? context.clock()
        }
    }

    static func run(_ flags: ParsedFlags, context: RunContext) throws -> ExitStatus {
        let options = try Options(flags, context: context)
        let (inputs, sources, location, givenDeviceID, deviceName, now) = (
            options.inputs, options.sources, options.location, options.deviceID, options.deviceName, options.now
        )

        var providers: [ProviderUsage] = []
        for input in inputs {
            providers += try readProviders(from: input, context: context, now: now)
        }
        var collected: [ProviderUsage] = []
        var spent: [Collected] = []
        var unread: [String] = []
        // Endpoints first: their windows are exact, and win over what logs suggest (see `combine`).
        for source in sources.sorted(by: { $0.isEndpoint && !$1.isEndpoint }) {
            do {
                let read = try source.collect(now: now)
                collected.append(read.usage)
                spent.append(read)
            } catch let error as CollectorError {
                // What the other sources read is published: one cron line for every machine must not fail
                // on the one without Gemini (docs/exit-codes.md).
                context.console.warn("--source \(source.name): \(error.message); published without it")
                unread.append("--source \(source.name): \(error.message)")
            }
        }
        // A price file that could not be read (damaged overrides): said once, the rest priced all the same.
        for problem in options.prices.problemsIfRead { context.console.warn(problem) }
        if collected.isEmpty, inputs.isEmpty, let first = unread.first {
            throw CommandFailure(unread.count == 1 ? first : "no source could be read (\(unread.count)): " + first)
        }
        // Every collector's entries pass the record's validation here, the one boundary (`--from` input
        // was refused already when it did not).
        for entry in Self.combine(collected) {
            let (admitted, warnings) = entry.admitted(source: "--source", now: now)
            for warning in warnings { context.console.warn(warning) }
            providers.append(admitted)
        }
        guard !providers.isEmpty else {
            throw CommandFailure(
                "no provider entries in \(inputs.map { "'\($0)'" }.joined(separator: ", ")); nothing to publish")
        }

        let dryRun = options.dryRun
        let historyFile = StateFile(directory: context.stateDirectory, name: "history")
        if dryRun {
            // What the record would carry, read without a lock or a write.
            var history = LocalHistory()
            if let data = FileSystem.contents(of: historyFile.path), let kept = try? LocalHistory.read(data) {
                history = kept
            }
            providers = providers.map { history.observe($0, now: now) }
        } else {
            providers = withHistory(providers, file: historyFile, now: now, console: context.console)
        }

        let deviceID =
            try givenDeviceID
            ?? (dryRun
                ? DeviceIdentity.existingOrPreview(stateDirectory: context.stateDirectory, hostName: context.hostName())
                : DeviceIdentity.loadOrCreate(stateDirectory: context.stateDirectory, hostName: context.hostName()))
        let snapshot = DeviceSnapshot(
            deviceID: deviceID,
            deviceName: deviceName.flatMap { $0.isEmpty ? nil : $0 } ?? defaultDeviceName(context.hostName(), deviceID),
            appVersion: "aggctl \(Aggctl.version)",
            generatedAt: now,
            providers: providers)
        if dryRun {
            context.console.output.write(String(decoding: try RecordCodec.encode(snapshot), as: UTF8.self))
            return .success
        }
        // Compact in the store: a record is for programs (a week of history indented was twice the size);
        // `--dry-run` shows it indented for people.
        let data = try RecordCodec.encode(snapshot, pretty: false)
        guard let location else { throw CommandFailure("publish needs --store S to write the record") }
        let store = try context.openStore(location)
        let cloneGuard = CloneGuard(cacheFolder: context.cacheFolder, store: location.displayName)
        // A store with nothing in it yet is new: said once, since a typo in a cron line would otherwise
        // publish to the wrong place for good. Looked at only on this machine's first publish there (no
        // memory of a write): every later one would pay a listing for nothing.
        var isNew = false
        if cloneGuard.remembered() == nil {
            do {
                isNew = try store.listRecordNames().isEmpty
            } catch StoreError.storeMissing {
                isNew = true
            } catch {}
        }
        if let finding = cloneGuard.check(in: store, deviceID: deviceID, deviceName: snapshot.deviceName, now: now) {
            context.console.warn(CloneGuard.warning(deviceID: deviceID, finding: finding))
        }
        do {
            try store.writeRecord(data, for: deviceID)
        } catch let error as StoreError {
            throw CommandFailure(error.description)
        }
        cloneGuard.remember(snapshot, bytes: data)
        if isNew {
            context.console.warn(
                "created a new store at \(location.displayName): no other machine publishes here yet (if another "
                    + "should, check the store's spelling on both)")
        }
        // Kept per store and device: another id (`--device-id`) publishes other months.
        let ledgerName = store.cacheName + "\n" + deviceID.rawValue
        try LedgerPublisher.publish(
            spent, of: providers, to: store, deviceID: deviceID, prices: options.prices, now: now,
            stamp: KeptFile.publishedLedger.path(in: context.cacheFolder, store: ledgerName),
            keptMonths: KeptFile.publishedMonths.path(in: context.cacheFolder, store: ledgerName))
        sweepLeftovers(in: store, of: deviceID, context: context)
        if context.console.errorsAreTerminal {
            context.console.note(
                "published '\(deviceID)' with \(providers.count) provider entr\(providers.count == 1 ? "y" : "ies") "
                    + "to '\(location.displayName)'")
        }
        return .success
    }

    /// The entries with this machine's history of their windows (docs/history-and-report.md): what they
    /// show now is recorded in `file` under its lock, and each entry carries the last 14 days.
    ///
    /// History never costs a publish: a damaged history file is set aside and started afresh, and a
    /// state directory that cannot be used is a warning (the record goes out with the history it can).
    static func withHistory(
        _ providers: [ProviderUsage], file: StateFile, now: Date, console: Console
    ) -> [ProviderUsage] {
        do {
            return try file.withLock(timeout: 30) {
                var history = LocalHistory()
                switch try file.load(LocalHistory.read) {
                case .fresh: break
                case .loaded(let loaded): history = loaded
                case .corrupt(let aside, let reason):
                    console.warn("history '\(file.path)' could not be read (\(reason)); set aside as '\(aside)'")
                }
                let observed = providers.map { history.observe($0, now: now) }
                history.prune(now: now)
                try file.save { try history.encoded() }
                return observed
            }
        } catch {
            console.warn("\(error); this record carries no new history")
            return providers
        }
    }

    /// Removes this device's temporary files that a killed publish left (older than an hour), its ledger
    /// months' too: every time
    /// in a folder, hourly on a server (the sweep lists the whole store), as a stamp file in the cache
    /// folder records. Uses the real clock: `--now` dates the record, not the files. A store that writes
    /// in place (S3) stages nothing, so has nothing to sweep.
    static func sweepLeftovers(in store: any RecordStore, of deviceID: DeviceID, context: RunContext) {
        guard let staging = store as? any StagingStore else { return }
        let realNow = Date()
        if !staging.traits.sweepsCheaply {
            let stamp = KeptFile.sweptStamp.path(in: context.cacheFolder, store: store.displayName)
            let last = (try? FileManager.default.attributesOfItem(atPath: stamp)[.modificationDate]) as? Date
            guard last.map({ realNow.timeIntervalSince($0) >= 3600 }) ?? true else { return }
            try? FileManager.default.createDirectory(atPath: context.cacheFolder, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: stamp, contents: nil)
        }
        staging.removeLeftoverTemporaryFiles(of: deviceID, olderThan: 3600, now: realNow)
        // The months a publish writes beside it: this UTC month's and the last one's.
        if let months = LedgerPublisher(store: store, deviceID: deviceID).months as? any StagingStore {
            for moment in [realNow, realNow.addingTimeInterval(-31 * 86_400)] {
                months.removeLeftoverTemporaryFiles(
                    of: DeviceID(alreadyValidated: Ledger.month(of: moment)), olderThan: 3600, now: realNow)
            }
        }
    }

    /// One entry per provider and account from several sources of this machine (`--source claude
    /// --source claude-api`): the first entry's figures, completed by the later ones' (an endpoint's
    /// windows with the logs' tokens and cost). Entries of one provider combine when their accounts are
    /// the same or one of them does not know it.
    static func combine(_ entries: [ProviderUsage]) -> [ProviderUsage] {
        var combined: [ProviderUsage] = []
        for entry in entries {
            let email = entry.accountEmail?.lowercased()
            guard
                let index = combined.firstIndex(where: {
                    $0.providerID == entry.providerID
                        && ($0.accountEmail == nil || email == nil || $0.accountEmail?.lowercased() == email)
                })
            else {
                combined.append(entry)
                continue
            }
            var first = combined[index]
            first.accountEmail = first.accountEmail ?? entry.accountEmail
            first.plan = first.plan ?? entry.plan
            first.lastUpdated = max(first.lastUpdated, entry.lastUpdated)
            first.session = first.session ?? entry.session
            first.weekly = first.weekly ?? entry.weekly
            first.modelWeekly = first.modelWeekly ?? entry.modelWeekly
            // Limits by id, the first source's figures standing.
            if let more = entry.limits {
                var limits = first.limits ?? []
                limits += more.filter { limit in !limits.contains { $0.id == limit.id } }
                first.limits = limits
            }
            first.tokens = first.tokens ?? entry.tokens
            first.costUSD = first.costUSD ?? entry.costUSD
            first.weeklySamples = first.weeklySamples ?? entry.weeklySamples
            // An error says why figures are missing: it stays only while they still are.
            if first.hasWindows {
                first.error = nil
            } else {
                first.error = first.error ?? entry.error
            }
            combined[index] = first
        }
        return combined
    }

    /// The collector a `--source NAME[:PATH]` value names (`CollectorRegistry`).
    static func collector(_ setting: Setting, context: CollectorContext) throws -> Collector {
        let text = setting.value
        let name = text.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
        let path = text.firstIndex(of: ":").map { String(text[text.index(after: $0)...]) }
        guard let kind = CollectorRegistry.standard.kind(named: name) else {
            throw UsageError(
                "\(setting.source): '\(text)' is not a collector; available: "
                    + CollectorRegistry.standard.names.joined(separator: ", ") + " (as NAME or NAME:PATH)",
                command: PublishCommand.name)
        }
        return try kind.make(path: path, context: context)
    }

    private static func readProviders(from input: String, context: RunContext, now: Date) throws -> [ProviderUsage] {
        let data: Data
        if input == "-" {
            do {
                data = try context.readStandardInput()
            } catch {
                throw CommandFailure("cannot read --from '-' (stdin): \(error.reason)")
            }
        } else {
            data = try readFile(input)
        }
        guard data.count <= RecordCodec.maximumRecordSize else {
            throw CommandFailure("--from '\(input)' is over the 32 MiB limit")
        }
        do {
            return try UsageInput.providers(from: data, now: now)
        } catch {
            throw CommandFailure("--from '\(input)': \(error.reason)")
        }
    }

    private static func readFile(_ path: String) throws -> Data {
        guard let isDirectory = FileSystem.isFolder(path) else {
            throw CommandFailure("cannot read --from '\(path)': no such file")
        }
        guard !isDirectory else {
            throw CommandFailure("cannot read --from '\(path)': it is a folder")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("cannot read --from '\(path)': permission denied or unreadable")
        }
        return data
    }

    private static func defaultDeviceName(_ hostName: String, _ deviceID: DeviceID) -> String {
        let short = hostName.split(separator: ".").first.map(String.init) ?? ""
        return short.isEmpty ? deviceID.rawValue : short
    }
}
