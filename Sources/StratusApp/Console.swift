import Foundation

/// Unbuffered writes to stdout and stderr: a line printed is visible at once to whoever reads
/// the pipe (tests wait for `listening on`).
enum Console {
    static func out(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
