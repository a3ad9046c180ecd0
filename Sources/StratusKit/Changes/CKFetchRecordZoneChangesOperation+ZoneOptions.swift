import Foundation

// The per-zone options of the iOS 10 API, kept working for code that still uses them: they are
// stored as the ZoneConfiguration that replaced them.

extension CKFetchRecordZoneChangesOperation {
    /// Per-zone options (the older name of ``ZoneConfiguration``).
    @available(*, deprecated, renamed: "CKFetchRecordZoneChangesOperation.ZoneConfiguration")
    public class ZoneOptions: NSObject, @unchecked Sendable {
        // @unchecked Sendable: as in Apple's SDK; configured before use.
        public var previousServerChangeToken: CKServerChangeToken?
        public var resultsLimit: Int = 0
        public var desiredKeys: [CKRecord.FieldKey]?
        public override init() { super.init() }
    }

    @available(*, deprecated, message: "Use init(recordZoneIDs:configurationsByRecordZoneID:) instead")
    public convenience init(recordZoneIDs: [CKRecordZone.ID], optionsByRecordZoneID: [CKRecordZone.ID: ZoneOptions]?) {
        self.init(recordZoneIDs: recordZoneIDs, configurationsByRecordZoneID: nil)
        self.optionsByRecordZoneID = optionsByRecordZoneID
    }

    @available(*, deprecated, renamed: "configurationsByRecordZoneID")
    public var optionsByRecordZoneID: [CKRecordZone.ID: ZoneOptions]? {
        get {
            configurationsByRecordZoneID?.mapValues { configuration in
                let options = ZoneOptions()
                options.previousServerChangeToken = configuration.previousServerChangeToken
                options.resultsLimit = configuration.resultsLimit
                options.desiredKeys = configuration.desiredKeys
                return options
            }
        }
        set {
            configurationsByRecordZoneID = newValue?.mapValues { options in
                ZoneConfiguration(
                    previousServerChangeToken: options.previousServerChangeToken,
                    resultsLimit: options.resultsLimit, desiredKeys: options.desiredKeys)
            }
        }
    }
}
