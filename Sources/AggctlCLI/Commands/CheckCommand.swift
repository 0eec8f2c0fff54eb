import Aggregator
import HTTP
import Notify
import Portable
import Snapshots
import Stores
import TextSafety

/// `aggctl check`: merge, detect session windows running out or coming back, deliver each event once.
enum CheckCommand {
    static let name: String = "check"
    static let summary =
        "Merge the store, detect windows running out, coming back or running low, and notify, exactly once per event."
    static let stateDir = FlagSpec.option(
        "state-dir", "D", "where state, outbox and caches live (default: $XDG_STATE_HOME/aggctl)")
    static let notify = FlagSpec.option(
        "notify", "SPEC", repeatable: true, choices: NotifierRegistry.standard.choices,
        NotifierRegistry.standard.forms + " (default: desktop where reachable, else stdout)")
    static let warnAt = FlagSpec.option(
        "warn-at", "P,...",
        "also warn when the remaining percent of the session, the week or a binding limit drops below each P")
    static let warnPace = FlagSpec.toggle(
        "warn-pace", "also warn, once per window and reset, when a window will run out before its reset")
    static let lockTimeout = FlagSpec.option(
        "lock-timeout", "SECONDS", "give up (exit 1) after waiting this long for another check's lock (default: wait)")
    static let flags = [
        CommonFlags.store, CommonFlags.keyFile, CommonFlags.requireEncrypted, stateDir, notify, warnAt, warnPace,
        lockTimeout, BudgetSettings.budget, CommonFlags.tz, CommonFlags.now, CommonFlags.staleAfter,
        CommonFlags.maxSkew,
    ]
    static let details =
        """
        Each event is written to an outbox in the state directory before any backend is tried, and marked
        delivered per backend only after that backend succeeded; failures are retried within the run
        (4 attempts) and on later runs. Exit 1 when an event is still undelivered (it stays queued).
        Two runs at once take turns on a lock, so each event is delivered once.
        A URL's path and query are secrets: messages show its scheme and host only.
        """ + "\n"
        + NotifierRegistry.standard.kinds.map { Command.wrapped("\($0.form): \($0.summary).") }.joined(separator: "\n")
    static let command = Command(name: name, summary: summary, flags: flags, details: details) { flags, context in
        try run(flags, context: context)
    }

    /// Events that keep failing are dropped after this long, with a warning, so a dead hook does not
    /// grow the outbox forever.
    static let outboxLifetime: TimeInterval = 86_400

    static func run(_ flags: ParsedFlags, context: RunContext) throws -> ExitStatus {
        try Setup(flags, context: context, command: name).runCycle()
    }

    /// What `check` and `watch` settle once from their flags, in one throwing step: the store and merge
    /// tolerances, backends, thresholds, the state file.
    struct Setup {
        var context: RunContext
        var merge: MergeSettings
        var notifiers: [any Notifier]
        var warnAt: [Int]
        var warnPace: Bool
        var ledger: DeliveryLedger<AlertState>
        var lockTimeout: TimeInterval?
        var budgets: BudgetSettings

        init(_ flags: ParsedFlags, context: RunContext, command: String) throws {
            var context = context
            if let directory = context.setting(CheckCommand.stateDir, flags: flags) {
                guard !directory.value.isEmpty else {
                    throw UsageError("\(directory.source): '' is not a folder path", command: command)
                }
                context.stateDirectoryOverride = directory.value
            }
            self.context = context
            merge = try MergeSettings(flags, context: context, command: command)
            // `notify` and `warn-at` in the config file stand in when no flag gives them (a `notify` line
            // per backend there).
            var notify = flags.all(CheckCommand.notify)
            if notify.isEmpty {
                notify = context.configuration.settings("notify").map(\.value)
                // The config's `desktop` is this machine's desktop while a session is there: a scheduled run
                // while nobody is logged in tells the other backends, not fails (docs/alerts.md). A flag
                // asks for it now, and is refused when it cannot be had.
                if DesktopNotifier.helperPath(in: context.environment) == nil { notify.removeAll { $0 == "desktop" } }
            }
            notifiers = try CheckCommand.notifiers(notify, context: context)
            warnAt = try context.setting(CheckCommand.warnAt, flags: flags).map(CheckCommand.parseThresholds) ?? []
            warnPace = flags.isSet(CheckCommand.warnPace)
            lockTimeout = try flags.setting(CheckCommand.lockTimeout).map(ValueParsers.seconds)
            budgets = try BudgetSettings(flags, context: context, command: command)
            ledger = DeliveryLedger(directory: context.stateDirectory)
        }

        /// One read, decide, deliver and write cycle under the state lock.
        func runCycle() throws -> ExitStatus {
            do {
                let console = context.console
                let body = { (session: inout DeliveryLedger<AlertState>.Session) in
                    try cycle(self, session: &session, realNow: Date())
                }
                return try ledger.cycle(timeout: lockTimeout, onWait: { console.note($0) }, body)
            } catch let error as StateFileError {
                throw CommandFailure(error.message)
            }
        }
    }

    /// One read, decide, deliver, write cycle, on the ledger under its lock (`DeliveryLedger` keeps the
    /// exactly-once rules: the new events written before any backend is tried, each delivery recorded as
    /// it happens).
    static func cycle(
        _ setup: Setup, session: inout DeliveryLedger<AlertState>.Session, realNow: Date
    ) throws -> ExitStatus {
        let context = setup.context
        var baselineOnly = false
        if case .corrupt(let aside, let reason, let salvaged) = session.start {
            // Starting over must not re-fire old events: this run only remembers where accounts stand.
            // Events still queued in the file are kept when its outbox reads, and told either way.
            let queued =
                switch salvaged {
                case 0?: "it held no queued event"
                case let count?: "its \(count) queued event(s) are kept and delivered"
                case nil: "events queued in it, if any, could not be read and are not delivered"
                }
            context.console.warn(
                "state '\(setup.ledger.file.path)' could not be read (\(reason)); set aside as '\(aside)'; "
                    + "\(queued); remembering accounts afresh without alerts this run")
            baselineOnly = true
        }

        let (result, finish) = try context.merged(setup.merge)
        defer { finish() }
        StatusCommand.report(result.problems, on: context.console)
        let detection = TransitionDetector.evaluate(
            previous: session.decisions, accounts: result.accounts, warnAt: setup.warnAt,
            baselineOnly: baselineOnly, paceAt: setup.warnPace ? result.now : nil,
            zone: ZoneInfo.local(environment: context.environment))
        session.decisions = detection.next
        session.decisions.forget(
            accountsNotIn: Set(result.accounts.flatMap(TransitionDetector.slots(of:))), now: result.now)
        session.enqueue(detection.events.map(Self.notification), at: realNow)
        if !setup.budgets.budgets.isEmpty {
            let (standings, problems) = try budgetStandings(setup, now: result.now)
            StatusCommand.report(problems, on: context.console)
            let events = BudgetAlerts.evaluate(standings, state: &session.decisions, at: result.now)
            // A run that starts afresh remembers where budgets stand without telling.
            if !baselineOnly { session.enqueue(events.map(Self.notification), at: realNow) }
        }
        try session.commit()
        let report = try session.deliver(
            to: setup.notifiers, policy: context.retryPolicy, now: realNow, lifetime: outboxLifetime,
            shared: try sharedDelivery(setup, now: result.now, sweeping: !session.outbox.items.isEmpty))
        for dropped in DeliveryFailure.summaries(report.dropped) {
            context.console.warn("dropping \(dropped): undelivered for over a day")
        }
        // One line per backend: a webhook that is down fails every queued event alike.
        let failures = DeliveryFailure.summaries(report.failures)
        guard let last = failures.last else { return .success }
        for failure in failures.dropLast() { context.console.warn("could not deliver \(failure)") }
        throw CommandFailure(
            "could not deliver \(last); \(session.outbox.items.count) event(s) stay queued for the next run")
    }

    /// Each budget's month so far, from the store's ledger.
    static func budgetStandings(_ setup: Setup, now: Date) throws -> ([BudgetStanding], [RecordProblem]) {
        do {
            return try setup.budgets.standings(
                in: try setup.context.openStore(setup.merge.location), now: now, context: setup.context)
        } catch let error as StoreError {
            throw CommandFailure(error.description)
        }
    }

    /// Who tells the shared channels, when this run has any: the store's claims (docs/alerts.md, "Once per
    /// person"); nil where the store keeps none (every machine sends, as before).
    /// - Parameter sweeping: remove claims past their 30 days (a run with events to deliver: a quiet
    ///   minute lists no claims; in a synced folder it still says it sends).
    static func sharedDelivery(_ setup: Setup, now: Date, sweeping: Bool) throws -> (any SharedDelivery)? {
        guard setup.notifiers.contains(where: \.isShared),
            let claims = try setup.context.openStore(setup.merge.location).claims
        else { return nil }
        let device = try DeviceIdentity.loadOrCreate(
            stateDirectory: setup.context.stateDirectory, hostName: setup.context.hostName())
        var storeClaims = StoreClaims(claims: claims, device: device, now: now)
        if !claims.isExclusive { storeClaims.sender = storeClaims.chosenSender() }
        if sweeping { storeClaims.sweep() }
        return storeClaims
    }

    static func notification(_ event: TransitionEvent) -> Notify.Notification {
        Notify.Notification(
            id: event.id, kind: event.kind.rawValue, window: event.window, providerID: event.providerID,
            accountEmail: event.accountEmail,
            remainingPercent: event.remainingPercent, resetsAt: event.resetsAt, title: event.title, body: event.body,
            at: event.at, urgency: event.kind == .depleted ? .critical : .normal)
    }

    /// Backends from `--notify` values (`NotifierRegistry`); without any, the desktop where one is
    /// reachable, else stdout.
    static func notifiers(_ specs: [String], context: RunContext) throws -> [any Notifier] {
        let made = NotifierContext(
            environment: context.environment,
            writeOutput: { [output = context.console.output] in
                try output.writeChecked($0)
            }, processRunner: context.processRunner,
            // One attempt per delivery: the outbox retries every backend alike.
            httpClient: { [context] credentials in try context.httpClient(credentials: credentials, retry: .never) },
            secrets: .aggctl)
        let registry = NotifierRegistry.standard
        let values =
            specs.isEmpty ? [DesktopNotifier.helperPath(in: context.environment) == nil ? "stdout" : "desktop"] : specs
        return try values.map { value -> any Notifier in
            guard let (kind, argument) = registry.kind(of: value) else {
                // Whatever was meant, a URL in it may be a secret: only its scheme and host are shown.
                let shown = value.contains("://") ? HTTPRequest.origin(of: value) + "/..." : value
                throw UsageError(
                    "--notify: '\(shown)' is not a notification backend; expected \(registry.forms)", command: name)
            }
            do {
                return try kind.make(argument: argument, context: made)
            } catch let error as NotifierSpecError {
                if error.isUsage { throw UsageError(error.message, command: name) }
                throw CommandFailure(error.message)
            }
        }
    }

    /// `25,10` into thresholds; each a whole percent from 1 to 99.
    static func parseThresholds(_ setting: Setting) throws -> [Int] {
        try setting.value.split(separator: ",", omittingEmptySubsequences: false).map { part in
            guard let value = Int(part.trimmingBlanks()), (1...99).contains(value) else {
                throw UsageError(
                    "\(setting.source): '\(setting.value)' is not a list of percentages; expected whole numbers "
                        + "1-99 such as 25,10",
                    command: name)
            }
            return value
        }
    }
}
