import Snapshots
import Testing

struct DeviceIDTests {
    @Test(
        "valid ids: letters, digits, dot, underscore and dash",
        arguments: [
            "a", "studio-mac", "laptop_2.home", "dev-00001-deadbeef", String(repeating: "x", count: 128), "A.b-C_9",
        ])
    func accepts(text: String) {
        #expect(DeviceID(rawValue: text)?.rawValue == text)
    }

    @Test(
        "invalid ids are refused with a reason",
        arguments: [
            ("", "a device id cannot be empty"),
            (String(repeating: "x", count: 129), "a device id has at most 128 characters"),
            (".hidden", "a device id cannot start with '.'"),
            ("..", "a device id cannot start with '.'"),
            ("../etc/passwd", "a device id cannot start with '.'"),
            ("a/b", "a device id has only letters, digits, '.', '_' and '-'"),
            ("has space", "a device id has only letters, digits, '.', '_' and '-'"),
            ("naïve", "a device id has only letters, digits, '.', '_' and '-'"),
            ("tab\t", "a device id has only letters, digits, '.', '_' and '-'"),
        ])
    func refuses(text: String, reason: String) {
        #expect(DeviceID(rawValue: text) == nil)
        #expect(DeviceID.problem(with: text) == reason)
    }

    @Test("a host name becomes a valid id")
    func sanitizing() {
        #expect(DeviceID.sanitizing("Studio Mac (2)")?.rawValue == "Studio-Mac--2-")
        #expect(DeviceID.sanitizing("..hidden")?.rawValue == "hidden")
        #expect(DeviceID.sanitizing("...") == nil)
    }

    @Test("ids order by bytes, the same on every machine")
    func ordering() {
        #expect(DeviceID(rawValue: "B")! < DeviceID(rawValue: "a")!)
        #expect(DeviceID(rawValue: "ab")! < DeviceID(rawValue: "abc")!)
    }
}
