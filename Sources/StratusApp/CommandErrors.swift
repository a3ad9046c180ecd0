import ArgumentParser
import StratusEngine
import StratusServer

/// Runs a command body, turning the errors a user can act on into one `error: …` line on stderr
/// and a non-zero exit status.
func reportingErrors<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as CloudKitError {
        Console.error("error: \(error.reason)")
        throw ExitCode.failure
    } catch let error as DataFolderError {
        Console.error("error: \(error.description)")
        throw ExitCode.failure
    } catch let error as ExitCode {
        throw error
    } catch {
        Console.error("error: \(error)")
        throw ExitCode.failure
    }
}
