// `os` for Linux: Apple's unified-logging API (`Logger`, `os_log`, `OSLog`, `OSLogType`) written
// through swift-log, so CloudKit code that logs compiles with its `import os` / `import os.log`
// unchanged. Built only on Linux (the product's targets are conditioned on the platform, and every
// file is inside `#if os(Linux)`); on Apple's platforms `import os` is Apple's own.
// `import os.log` is Clang submodule syntax: the `osLogSubmodule` target declares a Clang module
// `os` with an empty submodule `log`, and this Swift module is that Clang module's overlay.
