import Aggregator
import Portable
import Serialization

/// What `serve` answers with, made once per merge (never per request): the page, `status --json` and the
/// metrics, each with its entity tag.
struct ServedViews: Sendable {
    struct View: Sendable, Equatable {
        var body: [UInt8]
        var contentType: String
        /// A strong tag of the body's bytes: the same bytes, the same tag, across merges and restarts.
        var entityTag: String

        init(_ body: [UInt8], contentType: String) {
            self.body = body
            self.contentType = contentType
            entityTag = "\"" + ContentDigest.of(body).hex + "\""
        }
    }

    var page: View
    /// The page without figures, for a browser that has not given the token yet.
    var shell: View
    var status: View
    var metrics: View
    /// When the merge was made (its `now`).
    var mergedAt: Date

    /// The views of `result`; `refresh` is the page's poll interval, `tokenRequired` whether it asks for
    /// the token.
    init(result: MergeResult, refresh: Int, tokenRequired: Bool, spending: ReportSpending? = nil) {
        var json = StatusJSONWriter(capacity: 64 * 1024 + result.accounts.count * 2048)
        StatusReport.status(result, to: &json)
        var document: [UInt8] = []
        json.withBytes { document = Array($0) }
        document.append(0x0A)
        status = View(document, contentType: "application/json")
        metrics = View(
            PrometheusText.render(result), contentType: "text/plain; version=0.0.4; charset=utf-8")
        var page = DashboardPage(
            result: result, refresh: refresh, withFigures: true, tokenRequired: tokenRequired)
        page.spending = spending
        self.page = View(page.render(), contentType: "text/html; charset=utf-8")
        var shell = page
        shell.withFigures = false
        self.shell = View(shell.render(), contentType: "text/html; charset=utf-8")
        mergedAt = result.now
    }

    /// The script is the same for every merge: made once.
    static let script = View(Array(DashboardScript.source.utf8), contentType: "text/javascript; charset=utf-8")
}

/// The views `serve` answers with, replaced whole after each merge; read by the server's thread.
final class ServedState: @unchecked Sendable {
    private let lock = Lock()
    private var views: ServedViews?
    private var lastError: String?
    private var reads = 0

    /// The last views, why the last read failed (nil when it did not), and how many reads of the store
    /// were made since the start (`/healthz` tells: the benchmark counts reads under load by it).
    var current: ServedSnapshot {
        lock.lock()
        defer { lock.unlock() }
        return ServedSnapshot(views: views, error: lastError, reads: reads)
    }

    func publish(_ views: ServedViews) {
        var views = views
        lock.lock()
        if let old = self.views {
            // An unchanged view keeps the bytes already being sent: a slow reader of the last answer and a
            // new one share them, rather than each merge adding a copy while readers of the old one linger.
            if views.page.entityTag == old.page.entityTag { views.page = old.page }
            if views.shell.entityTag == old.shell.entityTag { views.shell = old.shell }
            if views.status.entityTag == old.status.entityTag { views.status = old.status }
            if views.metrics.entityTag == old.metrics.entityTag { views.metrics = old.metrics }
        }
        self.views = views
        lastError = nil
        reads += 1
        lock.unlock()
    }

    /// The store could not be read: the last views stand, `/healthz` says why.
    func fail(_ error: String) {
        lock.lock()
        lastError = error
        reads += 1
        lock.unlock()
    }
}

/// What the routes answer from: one consistent look at `ServedState`.
struct ServedSnapshot: Sendable {
    var views: ServedViews?
    var error: String?
    var reads: Int = 0
}
