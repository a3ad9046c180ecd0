import Foundation

extension JSONValue {
    /// Compact UTF-8 JSON. Object members are written in sorted key order so output is stable
    /// (diffable in tests and logs, and identical for identical records).
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(into: &out)
        return out
    }

    /// Compact UTF-8 JSON with object members in whatever order the dictionaries hold them: for
    /// response bodies, where sorting every record's keys was about 4% of a query's server time
    /// and no client depends on member order.
    public func serializedUnordered() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        write(into: &out, sortingKeys: false)
        return out
    }

    public var serializedData: Data { Data(serialized()) }

    public var serializedString: String { String(decoding: serialized(), as: UTF8.self) }

    public func write(into out: inout [UInt8], sortingKeys: Bool = true) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: b ? "true".utf8 : "false".utf8)
        case .int(let i): JSONValue.writeInteger(i, into: &out)
        case .double(let d): JSONValue.writeDouble(d, into: &out)
        case .string(let s): JSONValue.writeString(s, into: &out)
        case .raw(let raw): out.append(contentsOf: raw.bytes)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                element.write(into: &out, sortingKeys: sortingKeys)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            var first = true
            func writeMember(_ key: String, _ value: JSONValue) {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                JSONValue.writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                value.write(into: &out, sortingKeys: sortingKeys)
            }
            if sortingKeys {
                for member in members.sorted(by: { $0.key < $1.key }) { writeMember(member.key, member.value) }
            } else {
                for (key, value) in members { writeMember(key, value) }
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func writeDouble(_ d: Double, into out: inout [UInt8]) {
        guard d.isFinite else { out.append(contentsOf: Array("null".utf8)); return }
        // Swift's description is the shortest round-tripping form; keep a fraction so the value
        // reads back as a double ("5.0", not "5").
        var text = d.description
        if text.hasSuffix(".0") == false, text.contains(".") == false, text.contains("e") == false {
            text += ".0"
        }
        out.append(contentsOf: text.utf8)
    }

    /// Decimal digits without going through `String(i)` (an allocation per number).
    static func writeInteger(_ value: Int64, into out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var index = buffer.count
            repeat {
                index -= 1
                buffer[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[index...]))
        }
    }

    /// One pass over the string's UTF-8 buffer: runs that need no escaping (almost all text) are
    /// copied in bulk, and only `"`, `\\` and control characters are escaped.
    static func writeString(_ s: String, into out: inout [UInt8]) {
        var s = s
        out.append(UInt8(ascii: "\""))
        s.withUTF8 { buffer in
            var runStart = 0
            for index in buffer.indices {
                let byte = buffer[index]
                if byte >= 0x20, byte != 0x22, byte != 0x5C { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<index]))
                writeEscape(byte, into: &out)
                runStart = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func writeEscape(_ byte: UInt8, into out: inout [UInt8]) {
        switch byte {
        case 0x22: out.append(contentsOf: [0x5C, 0x22])
        case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        default:
            let hex = Array("0123456789abcdef".utf8)
            out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
    }
}
