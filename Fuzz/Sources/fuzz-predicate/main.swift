import Foundation
import FuzzSupport
@testable import StratusKit
import StratusModel

/// Arguments a format may consume: the first input byte says how many (0–4), the next bytes
/// which ones; the rest of the input is the format string.
enum Arguments {
    static let pool: [Any] = [
        "title", "rating", "Field notes", 4, 2.5, Int64.min, Date(timeIntervalSince1970: 1_700_000_000), ["a", "b"], [1, 2, 3],
        CKRecord.Reference(recordID: CKRecord.ID(recordName: "note-1"), action: .none), CLLocation(latitude: 48.85, longitude: 2.35),
        NSNull(), true, Data([1, 2, 3]), [["nested"]], NSObject(),
    ]
}

/// `NSPredicate(format:)` as StratusKit parses it for a query: lexer, parser and the
/// translation into CKWS filters. A format either becomes filters or a `CKError`.
func fuzzPredicate(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    guard let first = bytes.first else { return 0 }
    let count = min(Int(first % 5), bytes.count - 1)
    let arguments = bytes[1..<(1 + count)].map { Arguments.pool[Int($0) % Arguments.pool.count] }
    let format = String(decoding: bytes[(1 + count)...], as: UTF8.self)
    let predicate = NSPredicate(format: format, argumentArray: arguments)
    if case .filters(let filters)? = try? predicate.queryFilters() {
        _ = JSONValue.array(filters).serialized()
    }
    return 0
}

runFuzzer(setUp: { _ = Arguments.pool }, fuzzPredicate)
