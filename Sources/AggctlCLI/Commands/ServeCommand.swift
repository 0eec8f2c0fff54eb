import Aggregator
import HTTPServer
import Portable

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `aggctl serve`: the merged view over HTTP (docs/serve.md): the dashboard, `status --json`, the metrics
/// and a health check, from a merge made at most every `--refresh` seconds however many clients ask.
enum ServeCommand {
    static let name: String = "serve"
    static let summary = "Answer HTTP with the dashboard, status --json and metrics until interrupted."
    static let listen = FlagSpec.option(
        "listen", "HOST:PORT", "where to listen: an IP address or localhost, and a port (default 127.0.0.1:8787)")
    static let tokenFile = FlagSpec.option(
        "token-file", "F",
        "every request needs 'Authorization: Bearer' and the token in F (mode 0600); required off loopback")
    static let allowHost = FlagSpec.option(
        "allow-host", "NAME", repeatable: true,
        "also answer requests for the name NAME (a proxy's, this machine's); other names get 421")
    static let refresh = FlagSpec.option("refresh", "SECONDS", "seconds between reads of the store (default 60)")
    static let flags = [
        CommonFlags.store, CommonFlags.keyFile, CommonFlags.requireEncrypted, listen, allowHost, tokenFile, refresh,
        CommonFlags.now, CommonFlags.staleAfter, CommonFlags.maxSkew,
    ]
    static let details = """
        GET / is the dashboard (the report's page, its live part redrawn from /api/status every --refresh
        seconds without a reload), /api/status what status --json prints, /metrics what export --format
        prometheus prints, /healthz 'ok' once a read stands (503 while the store cannot be read). Only GET and
        HEAD are answered; each answer has an ETag, and If-None-Match gets 304. A request is answered only for
        the listen address, localhost or a loopback address with the port, or an --allow-host name (421
        otherwise: a web page cannot rebind its own name to this server). On any address but loopback,
        serve refuses to start without --token-file; then every request needs the token but the page's shell,
        which asks for it once. SIGINT or SIGTERM stops it (exit 0). Limits: 256 connections, 64 from one
        address, 10 s of silence, 10 s for a request's headers, 120 s to send an answer, 32 KiB of memory per
        connection (request headers included; more is answered 431). docs/serve.md has the rest.
        """
    static let command = Command(name: name, summary: summary, flags: flags, details: details) { flags, context in
        try run(flags, context: context)
    }

    struct Options {
        var merge: MergeSettings
        var address: ListenAddress
        var allowedHosts: [String]
        var token: [UInt8]?
        var refresh: TimeInterval
        var limits = HTTPServer.Limits.default

        init(_ flags: ParsedFlags, context: RunContext) throws {
            address = .default
            if let text = flags.value(ServeCommand.listen) {
                switch ListenAddress.parse(text) {
                case .success(let parsed): address = parsed
                case .failure(let error): throw UsageError("--listen: '\(text)': \(error)", command: name)
                }
            }
            allowedHosts = try flags.all(ServeCommand.allowHost).map { name in
                if let problem = AnsweredHosts.problem(withName: name) {
                    throw UsageError("--allow-host: \(problem)", command: ServeCommand.name)
                }
                return name
            }
            token = try flags.value(ServeCommand.tokenFile).map { try Self.readToken(from: $0, context: context) }
            if token == nil, !address.isLoopback {
                throw UsageError(
                    "--listen \(address) is reachable from other machines: give --token-file (docs/serve.md)",
                    command: name)
            }
            refresh =
                try context.setting(ServeCommand.refresh, flags: flags).map { setting in
                    let seconds = try ValueParsers.seconds(setting)
                    guard seconds >= 1 else {
                        throw UsageError(
                            "\(setting.source): '\(setting.value)' is too short; expected at least 1 second",
                            command: name)
                    }
                    return seconds
                } ?? 60
            merge = try MergeSettings(flags, context: context, command: name)
            // Seconds a connection may be silent and a request's headers may take (default 10), and an
            // answer may take to be sent (default 120); tests shorten them, a slow network may need more.
            func seconds(_ variable: String) throws -> Int? {
                guard let text = context.environment[variable], !text.isEmpty else { return nil }
                guard let seconds = Int(text), (1...3600).contains(seconds) else {
                    throw UsageError(
                        "\(variable): '\(text)' is not a number of seconds from 1 to 3600", command: name)
                }
                return seconds
            }
            if let timeout = try seconds("AGGCTL_SERVE_TIMEOUT") {
                limits.idleSeconds = timeout
                limits.requestSeconds = timeout
            }
            if let timeout = try seconds("AGGCTL_SERVE_ANSWER_TIMEOUT") { limits.answerSeconds = timeout }
        }

        /// The token in `path`: its first line, 16 to 512 visible ASCII characters. Refused, naming the file
        /// only: one others may read, one that is not a regular file.
        static func readToken(from path: String, context: RunContext) throws -> [UInt8] {
            let expanded = context.expandingTilde(path)
            func refuse(_ reason: String) -> CommandFailure { CommandFailure("token file '\(path)': \(reason)") }
            var info = stat()
            guard stat(expanded, &info) == 0 else { throw refuse(String(cString: strerror(errno)).lowercased()) }
            guard info.st_mode & S_IFMT == S_IFREG else { throw refuse("it is not a regular file") }
            guard info.st_mode & 0o077 == 0 else {
                throw refuse("others may read it (mode \(String(info.st_mode & 0o777, radix: 8))); chmod 600 it first")
            }
            guard info.st_size <= 4096, let data = FileSystem.contents(of: expanded) else {
                throw refuse("it cannot be read as a token file")
            }
            let line = Array(data.prefix { $0 != 0x0A && $0 != 0x0D })
            let token = Array(
                line.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed())
            guard (16...512).contains(token.count), token.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw refuse("its first line is not a token of 16 to 512 visible ASCII characters")
            }
            return token
        }
    }

    static func run(_ flags: ParsedFlags, context: RunContext) throws -> ExitStatus {
        let options = try Options(flags, context: context)
        // A service that runs for months keeps two malloc arenas, and frees each merge (as watch does).
        Allocator.limitArenas(to: 2)
        var context = context
        context.keepUntilExit = { _ in }
        let state = ServedState()
        let routes = ServeRoutes(
            token: options.token, hosts: AnsweredHosts(listen: options.address, names: options.allowedHosts))
        let server: HTTPServer
        do {
            server = try HTTPServer.start(on: options.address, limits: options.limits) { request in
                routes.answer(request, state: state.current)
            }
        } catch {
            throw CommandFailure(error.description)
        }
        let shown = ListenAddress(copying: options.address, port: UInt16(server.port))
        context.console.note(
            "serving \(options.merge.location.displayName) on http://\(shown)/ (read every \(Int(options.refresh)) s)")
        let stop = StopSignal()
        defer { stop.cancel() }
        // A read every --refresh seconds from the start of the last one: never more often, and not less
        // often for the time a read takes (under load, most of a second at 1000 records).
        while !stop.isRequested {
            let started = Date()
            merge(options, context: context, into: state)
            stop.wait(max(0.05, options.refresh - Date().timeIntervalSince(started)))
        }
        server.stop()
        return .success
    }

    /// One read of the store and the views made from it; a store that cannot be read leaves the last views.
    static func merge(_ options: Options, context: RunContext, into state: ServedState) {
        let failure: String
        do {
            let (result, finish) = try context.merged(options.merge, history: .full)
            finish()
            if state.current.error != nil { context.console.note("the store can be read again") }
            // The ledger's last 30 days under the live part; a ledger that cannot be read leaves it out.
            let spending = try? ReportCommand.spending(
                in: options.merge.location, days: 30, zone: nil, now: result.now, context: context,
                tellingProblems: false)
            state.publish(
                ServedViews(
                    result: result, refresh: Int(options.refresh), tokenRequired: options.token != nil,
                    spending: spending ?? nil))
            return
        } catch let error as CommandFailure {
            failure = error.message
        } catch {
            failure = "\(error)"
        }
        // Said once while it lasts, not every --refresh (a service's log would fill with the same line).
        if state.current.error != failure { context.console.fail(failure + " (the last figures are served meanwhile)") }
        state.fail(failure)
    }
}
