// CloudKit.RecordsBatchBuilder (database.newRecordsBatch): operations of every type gathered and
// sent as one records/modify request per zone by commit(). In a custom zone the batch is atomic
// unless commit({atomic: false}).

const OPERATIONS = ['create', 'update', 'forceUpdate', 'replace', 'forceReplace', 'delete', 'forceDelete'];

export class RecordsBatchBuilder {
    constructor(database, zoneID) {
        this.database = database;
        this.zoneID = zoneID;
        this.operations = [];
    }

    async commit(options = {}) {
        return this.database.modifyRecords(this.operations, {zoneID: this.zoneID, ...options});
    }
}

for (const operationType of OPERATIONS) {
    RecordsBatchBuilder.prototype[operationType] = function add(records) {
        for (const record of Array.isArray(records) ? records : [records]) {
            this.operations.push({operationType, record: typeof record === 'string' ? {recordName: record} : record});
        }
        return this;
    };
}
