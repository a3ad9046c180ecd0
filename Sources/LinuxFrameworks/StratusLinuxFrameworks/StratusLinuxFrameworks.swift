// The product `StratusLinuxFrameworks`: on Linux it brings the modules `os`, `OSLog`,
// `CoreLocation` and `Combine` (its dependencies, each conditioned on Linux), which stand in for
// the Apple frameworks CloudKit code imports beside CloudKit. On Apple's platforms it brings
// nothing and those imports are Apple's. This file declares nothing; see docs/stratuskit-api.md.
