import Foundation

/// The clock every stored timestamp uses: milliseconds since 1970, rounded.
public func nowMilliseconds() -> Int64 { milliseconds(since1970: Date()) }

/// A date as stored timestamps write it.
public func milliseconds(since1970 date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
