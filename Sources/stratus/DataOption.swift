import ArgumentParser
import Foundation
import StratusServer

/// `--data DIR`, falling back to `STRATUS_DATA`, then `./stratus-data`.
struct DataOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Data folder (env STRATUS_DATA; default ./stratus-data).", valueName: "dir"))
    var data: String?

    var folder: DataFolder {
        DataFolder(path: data ?? ProcessInfo.processInfo.environment["STRATUS_DATA"] ?? "./stratus-data")
    }
}
