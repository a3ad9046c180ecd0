#if os(Linux)
import Foundation

/// A log message written with string interpolation, as Apple's `OSLogMessage`. Interpolated
/// values are kept as closures and rendered only when the message is written, so a message below
/// the logger's level costs no formatting.
public struct OSLogMessage: ExpressibleByStringInterpolation, ExpressibleByStringLiteral {
    let interpolation: OSLogInterpolation

    public init(stringInterpolation: OSLogInterpolation) {
        interpolation = stringInterpolation
    }

    public init(stringLiteral value: String) {
        var interpolation = OSLogInterpolation(literalCapacity: value.count, interpolationCount: 0)
        interpolation.appendLiteral(value)
        self.interpolation = interpolation
    }

    /// The message's text, with every interpolated value rendered.
    public var rendered: String {
        interpolation.segments.map { $0() }.joined()
    }
}

/// The pieces of an `OSLogMessage`: literals and the values interpolated between them, with the
/// options Apple's interpolation takes (`privacy:` is accepted and ignored, see `OSLogPrivacy`).
public struct OSLogInterpolation: StringInterpolationProtocol {
    var segments: [() -> String] = []

    public init(literalCapacity: Int, interpolationCount: Int) {
        segments.reserveCapacity(interpolationCount * 2 + 1)
    }

    public mutating func appendLiteral(_ literal: String) {
        segments.append { literal }
    }

    public mutating func appendInterpolation(
        _ argumentString: @autoclosure @escaping () -> String,
        align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto
    ) {
        segments.append { align.apply(argumentString()) }
    }

    public mutating func appendInterpolation<T: CustomStringConvertible>(
        _ value: @autoclosure @escaping () -> T,
        align: OSLogStringAlignment = .none,
        privacy: OSLogPrivacy = .auto
    ) {
        segments.append { align.apply(value().description) }
    }

    public mutating func appendInterpolation(
        _ number: @autoclosure @escaping () -> Int,
        format: OSLogIntegerFormatting = .decimal,
        align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto
    ) {
        segments.append { align.apply(format.apply(number())) }
    }

    public mutating func appendInterpolation<T: FixedWidthInteger>(
        _ number: @autoclosure @escaping () -> T,
        format: OSLogIntegerFormatting = .decimal,
        align: OSLogStringAlignment = .none,
        privacy: OSLogPrivacy = .auto
    ) {
        segments.append { align.apply(format.apply(number())) }
    }

    public mutating func appendInterpolation(
        _ number: @autoclosure @escaping () -> Double,
        format: OSLogFloatFormatting = .fixed,
        align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto
    ) {
        segments.append { align.apply(format.apply(number())) }
    }

    public mutating func appendInterpolation(
        _ number: @autoclosure @escaping () -> Float,
        format: OSLogFloatFormatting = .fixed,
        align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto
    ) {
        segments.append { align.apply(format.apply(Double(number()))) }
    }

    public mutating func appendInterpolation(
        _ boolean: @autoclosure @escaping () -> Bool,
        format: OSLogBoolFormat = .truth, privacy: OSLogPrivacy = .auto
    ) {
        segments.append { boolean() ? format.words.0 : format.words.1 }
    }

    public mutating func appendInterpolation(
        _ value: @autoclosure @escaping () -> any Any.Type,
        align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto
    ) {
        segments.append { align.apply(String(describing: value())) }
    }

    public mutating func appendInterpolation(
        _ error: @autoclosure @escaping () -> any Error,
        privacy: OSLogPrivacy = .auto, attributes: String = ""
    ) {
        segments.append { String(describing: error()) }
    }

    public mutating func appendInterpolation(
        _ object: @autoclosure @escaping () -> NSObject,
        privacy: OSLogPrivacy = .auto, attributes: String = ""
    ) {
        segments.append { object().description }
    }
}
#endif
