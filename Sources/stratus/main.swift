import StratusApp

// The `stratus` command: the server and its administration, with no logic of the app's own.
await Stratus().run()
