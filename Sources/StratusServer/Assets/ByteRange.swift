import Foundation

/// A `Range: bytes=…` header (RFC 9110 §14.1.2) against a blob of `size` bytes. One range only;
/// a multi-range request is answered with the whole blob, which the RFC allows.
enum ByteRange: Equatable {
    case whole
    case partial(Range<Int64>)
    case unsatisfiable

    init(header: String?, size: Int64) {
        guard let header else { self = .whole; return }
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes="), !trimmed.contains(",") else { self = .whole; return }
        let spec = trimmed.dropFirst("bytes=".count)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 else { self = .whole; return }
        if parts[0].isEmpty {
            // Suffix range: the last N bytes.
            guard let suffix = Int64(parts[1]) else { self = .whole; return }
            guard suffix > 0, size > 0 else { self = .unsatisfiable; return }
            self = .partial(max(0, size - suffix)..<size)
            return
        }
        guard let first = Int64(parts[0]), first >= 0 else { self = .whole; return }
        let last: Int64
        if parts[1].isEmpty {
            last = size - 1
        } else {
            guard let value = Int64(parts[1]), value >= first else { self = .whole; return }
            last = min(value, size - 1)
        }
        guard first < size else { self = .unsatisfiable; return }
        self = .partial(first..<(last + 1))
    }
}
