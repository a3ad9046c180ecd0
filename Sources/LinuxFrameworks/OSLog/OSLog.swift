// `OSLog` for Linux: Apple's module of that name re-exports `os`'s logging API, and so does this
// one (see Sources/LinuxFrameworks/os).
#if os(Linux)
@_exported import os
#endif
