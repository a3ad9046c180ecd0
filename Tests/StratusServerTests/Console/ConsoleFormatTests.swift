import Foundation
@testable import StratusServer
import Testing

/// The console's UTC times match Foundation's calendar, around leap days and before 1970.
@Suite struct ConsoleFormatTests {
    @Test func timesMatchFoundation() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        let samples: [Int64] = [
            0, 951_782_400_000, 951_868_799_999, 1_709_164_800_000, 4_102_444_800_000, -1, -86_400_001, -2_208_988_800_000,
            1_795_000_123_456,
        ]
        for milliseconds in samples {
            let expected = formatter.string(from: Date(timeIntervalSince1970: (Double(milliseconds) / 1000).rounded(.down)))
            #expect(ConsoleFormat.time(milliseconds) == expected, "\(milliseconds)")
        }
    }
}
