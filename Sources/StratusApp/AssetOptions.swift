import ArgumentParser
import Foundation
import StratusEngine
import StratusS3
import StratusServer
import StratusStore

/// Asset limits and where blobs are kept, from flags or the environment.
struct AssetOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Largest asset file accepted, in MB (env STRATUS_MAX_ASSET_MB; default 50).", valueName: "mb"))
    var maxAssetMb: Double?
    @Option(help: ArgumentHelp("Asset storage quota of each container's public database, in MB (env STRATUS_PUBLIC_QUOTA_MB; default none).", valueName: "mb"))
    var publicQuotaMb: Double?
    @Option(help: ArgumentHelp("Asset storage quota of each user's private database, in MB (env STRATUS_PRIVATE_QUOTA_MB; default none).", valueName: "mb"))
    var privateQuotaMb: Double?
    @Option(help: ArgumentHelp("Hours an asset nobody references is kept before it is collected (env STRATUS_ASSET_GRACE_HOURS; default 24).", valueName: "hours"))
    var assetGraceHours: Double?

    static func megabytes(_ flag: Double?, _ variable: String) throws -> Int64? {
        let environment = ProcessInfo.processInfo.environment
        guard
            let value = try flag
                ?? environment[variable].map({ text throws -> Double in
                    guard let number = Double(text), number >= 0 else {
                        Console.error("error: \(variable)='\(text)' is not a number of megabytes")
                        throw ExitCode.failure
                    }
                    return number
                })
        else { return nil }
        return Int64(value * 1024 * 1024)
    }

    /// The engine limits with these options applied.
    func apply(to limits: inout EngineLimits) throws {
        if let maximum = try AssetOptions.megabytes(maxAssetMb, "STRATUS_MAX_ASSET_MB") { limits.maximumAssetBytes = maximum }
        limits.publicAssetQuotaBytes = try AssetOptions.megabytes(publicQuotaMb, "STRATUS_PUBLIC_QUOTA_MB")
        limits.privateAssetQuotaBytes = try AssetOptions.megabytes(privateQuotaMb, "STRATUS_PRIVATE_QUOTA_MB")
    }

    /// Seconds an unreferenced blob is kept.
    var gracePeriod: Double {
        (assetGraceHours ?? ProcessInfo.processInfo.environment["STRATUS_ASSET_GRACE_HOURS"].flatMap(Double.init) ?? 24) * 3600
    }

    /// Blobs as files under the data folder, or in an S3-compatible bucket when
    /// `STRATUS_S3_BUCKET` is set (with `STRATUS_S3_ENDPOINT`, `STRATUS_S3_REGION` and the
    /// credentials in `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY`, with `AWS_SESSION_TOKEN` for
    /// temporary ones). Uploads spool under the data folder either way.
    func configuration(_ folder: DataFolder) throws -> AssetConfiguration {
        let environment = ProcessInfo.processInfo.environment
        guard let bucket = environment["STRATUS_S3_BUCKET"], !bucket.isEmpty else {
            return AssetConfiguration(blobs: FileBlobStore(root: folder.blobsFolder), spoolFolder: folder.spoolFolder)
        }
        let endpointText = environment["STRATUS_S3_ENDPOINT"] ?? "https://s3.\(environment["STRATUS_S3_REGION"] ?? "us-east-1").amazonaws.com"
        guard let endpoint = URL(string: endpointText), endpoint.host != nil else {
            Console.error("error: STRATUS_S3_ENDPOINT='\(endpointText)' is not a URL; use e.g. https://s3.eu-west-1.amazonaws.com")
            throw ExitCode.failure
        }
        guard let key = environment["AWS_ACCESS_KEY_ID"], let secret = environment["AWS_SECRET_ACCESS_KEY"] else {
            Console.error("error: STRATUS_S3_BUCKET is set but AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY are not; set both")
            throw ExitCode.failure
        }
        let store = S3BlobStore(
            configuration: S3Configuration(
                endpoint: endpoint, bucket: bucket,
                region: environment["STRATUS_S3_REGION"] ?? "us-east-1",
                accessKeyID: key, secretAccessKey: secret,
                sessionToken: environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }))
        return AssetConfiguration(blobs: store, spoolFolder: folder.spoolFolder)
    }
}
