import Aggregator
import Notify

/// The delivery ledger keeps the alert state beside its outbox, written by the state's own writer
/// (`AlertState+JSON`).
extension AlertState: LedgerDecisions {}
