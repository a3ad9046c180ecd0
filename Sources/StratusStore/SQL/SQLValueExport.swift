// SQL values live in their own small module so the SQLite connection wrapper (StratusSQLiteCore),
// which the server's store and the client-side sync cache share, does not depend on the server's
// store. Everything that imports StratusStore keeps seeing them.
@_exported import StratusSQLValue
