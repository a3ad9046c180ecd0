import Foundation

// Pre-Swift-4.2 names such as `CKRecordID` (Swift 4.2 nested them, e.g. `CKRecord.ID`). Apple's
// SDK rejects them with "renamed" errors; Stratus accepts older code on purpose, with a
// deprecation warning that names the new spelling.

/// The older name of ``CKRecord/ID``.
@available(*, deprecated, renamed: "CKRecord.ID")
public typealias CKRecordID = CKRecord.ID
/// The older name of ``CKRecordZone/ID``.
@available(*, deprecated, renamed: "CKRecordZone.ID")
public typealias CKRecordZoneID = CKRecordZone.ID
/// The older name of ``CKRecord/Reference``.
@available(*, deprecated, renamed: "CKRecord.Reference")
public typealias CKReference = CKRecord.Reference
/// The older name of ``CKRecord/ReferenceAction``.
@available(*, deprecated, renamed: "CKRecord.ReferenceAction")
public typealias CKReferenceAction = CKRecord.ReferenceAction
/// The older name of ``CKRecord/ReferenceAction``.
@available(*, deprecated, renamed: "CKRecord.ReferenceAction")
public typealias CKRecord_Reference_Action = CKRecord.ReferenceAction
/// The older name of ``CKRecordZone/Capabilities``.
@available(*, deprecated, renamed: "CKRecordZone.Capabilities")
public typealias CKRecordZoneCapabilities = CKRecordZone.Capabilities
/// The older name of ``CKModifyRecordsOperation/RecordSavePolicy``.
@available(*, deprecated, renamed: "CKModifyRecordsOperation.RecordSavePolicy")
public typealias CKRecordSavePolicy = CKModifyRecordsOperation.RecordSavePolicy
/// The older name of ``CKDatabase/Scope``.
@available(*, deprecated, renamed: "CKDatabase.Scope")
public typealias CKDatabaseScope = CKDatabase.Scope
/// The older name of ``CKError/Code``.
@available(*, deprecated, renamed: "CKError.Code")
public typealias CKErrorCode = CKError.Code
/// The older name of ``CKQueryOperation/Cursor``.
@available(*, deprecated, renamed: "CKQueryOperation.Cursor")
public typealias CKQueryCursor = CKQueryOperation.Cursor
/// The older name of ``CKOperation/Configuration``.
@available(*, deprecated, renamed: "CKOperation.Configuration")
public typealias CKOperationConfiguration = CKOperation.Configuration
/// The older name of ``CKRecord/RecordType``.
@available(*, deprecated, renamed: "CKRecord.RecordType")
public typealias CKRecordType = CKRecord.RecordType
/// The older name of ``CKRecord/FieldKey``.
@available(*, deprecated, renamed: "CKRecord.FieldKey")
public typealias CKRecordFieldKey = CKRecord.FieldKey
/// The older name of ``CKOperation/ID``.
@available(*, deprecated, renamed: "CKOperation.ID")
public typealias CKOperationID = CKOperation.ID

/// The user record type, `Users`.
public let CKRecordTypeUserRecord: CKRecord.RecordType = CKRecord.SystemType.userRecord
/// The share record type.
public let CKRecordTypeShare: CKRecord.RecordType = CKRecord.SystemType.share
/// The parent system field key.
public let CKRecordParentKey: CKRecord.FieldKey = CKRecord.SystemFieldKey.parent
/// The share system field key.
public let CKRecordShareKey: CKRecord.FieldKey = CKRecord.SystemFieldKey.share
