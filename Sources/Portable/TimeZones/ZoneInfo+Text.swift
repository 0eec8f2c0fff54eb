extension ZoneInfo {
    /// `date` as people read it where they are: `2026-11-30 16:00 Europe/Prague` (the zone shown, so a
    /// phone in another zone is not misled); whole minutes, the seconds dropped.
    public func peopleText(_ date: Date) -> String {
        let civil = civilTime(at: date)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        let day = "\(civil.year)-\(two(civil.month))-\(two(civil.day))"
        return "\(day) \(two(civil.hour)):\(two(civil.minute)) \(identifier)"
    }
}
