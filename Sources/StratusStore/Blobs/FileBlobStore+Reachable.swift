import Foundation
import StratusEngine
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FileBlobStore {
    /// The folder must be readable and writable: a lost mount or a read-only remount fails here
    /// before uploads and downloads do. A missing folder is made (the first upload would make it
    /// too), but not its parent: a data folder that vanished is a failure.
    public func checkReachable() async throws {
        var isFolder: ObjCBool = false
        if !FileManager.default.fileExists(atPath: root.path, isDirectory: &isFolder) {
            do {
                try FileManager.default.createDirectory(at: root, withIntermediateDirectories: false)
                isFolder = true
            } catch {
                throw BlobStoreError("the asset folder \(root.path) is missing and cannot be made: \(error.localizedDescription)")
            }
        }
        guard isFolder.boolValue else { throw BlobStoreError("the asset folder \(root.path) is not a folder") }
        guard access(root.path, R_OK | W_OK | X_OK) == 0 else {
            throw BlobStoreError("the asset folder \(root.path) is not readable and writable: \(String(cString: strerror(errno)))")
        }
    }
}
