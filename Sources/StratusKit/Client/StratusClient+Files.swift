import Foundation
import StratusModel

extension StratusClient {
    /// POSTs a file to an upload URL from assets/upload and returns the `singleFile` dictionary.
    /// A dropped connection or a 5xx/429 answer is retried (up to `maximumRetries`, backing off).
    func uploadFile(_ file: URL, to url: URL) async throws(CKError) -> AssetValue {
        let request = StratusHTTPRequest(method: "POST", url: url, headers: ["Content-Type": "application/octet-stream"])
        let response = try await withTransientRetries("upload of \(file.lastPathComponent)") {
            try await configuration.transport.upload(request, fromFile: file)
        }
        let json = try? JSONValue.parse(response.body)
        guard (200..<300).contains(response.status) else {
            throw json.flatMap { CKError(errorDictionary: $0) } ?? CKError(.serverRejectedRequest, "HTTP \(response.status) uploading \(file.lastPathComponent)")
        }
        guard let single = json?["singleFile"], let asset = try? AssetValue(json: single, path: "singleFile"), asset.receipt != nil else {
            throw CKError(.serverResponseLost, "the server's answer to the upload of \(file.lastPathComponent) has no singleFile receipt")
        }
        return asset
    }

    /// The local copy of a fetched asset: from the cache (named by checksum) or downloaded into it.
    func localFile(for asset: AssetValue) async throws(CKError) -> URL {
        guard let checksum = asset.fileChecksum, let link = asset.downloadURL else {
            throw CKError(.assetNotAvailable, "the server sent an asset without a checksum or downloadURL")
        }
        let folder = configuration.assetCacheFolder
        let cached = folder.appendingPathComponent(checksum.filter { $0.isLetter || $0.isNumber })
        if let size = try? FileManager.default.attributesOfItem(atPath: cached.path)[.size] as? NSNumber, size.int64Value == asset.size ?? -1 {
            return cached
        }
        guard let url = URL(string: link.replacingOccurrences(of: "${f}", with: "asset")) else {
            throw CKError(.assetNotAvailable, "the asset's downloadURL is not a URL")
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw CKError(.assetNotAvailable, "cannot create the asset cache \(folder.path): \(error.localizedDescription); set StratusConfiguration.assetCacheFolder")
        }
        // Downloaded beside the cache file, then renamed: a reader never sees a partial file.
        let partial = folder.appendingPathComponent(".\(UUID().uuidString).part")
        let response = try await withTransientRetries("download of asset \(checksum.prefix(12))") {
            try await configuration.transport.download(StratusHTTPRequest(method: "GET", url: url), to: partial)
        }
        guard (200..<300).contains(response.status) else {
            try? FileManager.default.removeItem(at: partial)
            throw CKError(.assetNotAvailable, "downloading asset \(checksum.prefix(12)) answered HTTP \(response.status); fetch the record again for a fresh downloadURL")
        }
        do {
            try? FileManager.default.removeItem(at: cached)
            try FileManager.default.moveItem(at: partial, to: cached)
        } catch {
            throw CKError(.assetNotAvailable, "cannot store the downloaded asset in \(folder.path): \(error.localizedDescription)")
        }
        return cached
    }

    /// Runs a file transfer, retrying when no answer arrived or the server answered 5xx/429.
    func withTransientRetries(_ what: String, _ body: () async throws -> StratusHTTPResponse) async throws(CKError) -> StratusHTTPResponse {
        var attempt = 0
        while true {
            var failure: CKError
            _ = try OperationContext.requestTimeout(before: what)
            do {
                let response = try await body()
                guard response.status >= 500 || response.status == 429 else { return response }
                if attempt >= configuration.maximumRetries { return response }
                failure = CKError(.serviceUnavailable, "HTTP \(response.status)")
            } catch let error as CKError {
                failure = error
            } catch {
                failure = CKError(.networkFailure, "\(what) failed: \(error.localizedDescription)")
            }
            guard attempt < configuration.maximumRetries else { throw failure }
            attempt += 1
            let delay = min(Double(attempt) * 0.5, configuration.maximumRetryDelay, max(OperationContext.secondsLeft ?? .infinity, 0))
            try? await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
        }
    }
}
