import {CKError, isErrorDictionary} from './errors.js';
import {decodeRecord} from './values.js';

// The objects the promises resolve to, shaped as CloudKit JS shapes them: the items that worked in
// their list, the items that failed as CKErrors in `errors`, and `hasErrors` saying which happened.

export class Response {
    constructor(database) {
        this.containerIdentifier = database?.containerIdentifier;
        this.databaseScope = database?.databaseScope;
        this.errors = [];
    }

    get hasErrors() { return this.errors.length > 0; }

    addError(item) {
        const error = CKError.fromServer(item);
        if (item.serverRecord) error.serverRecord = decodeRecord(item.serverRecord);
        this.errors.push(error);
        return error;
    }
}

export class RecordsResponse extends Response {
    constructor(database, items = []) {
        super(database);
        this.records = [];
        for (const item of items) {
            if (isErrorDictionary(item)) this.addError(item);
            else this.records.push(decodeRecord(item));
        }
    }
}

export class QueryResponse extends RecordsResponse {
    constructor(database, json, query, options) {
        super(database, json.records);
        this.query = query;
        this.options = options;
        this.continuationMarker = json.continuationMarker;
        this.moreComing = Boolean(json.continuationMarker);
    }
}

// Zones, subscriptions and users: one list under `key`.
export class ListResponse extends Response {
    constructor(database, key, items = []) {
        super(database);
        this[key] = [];
        for (const item of items) {
            if (isErrorDictionary(item)) this.addError(item);
            else this[key].push(item);
        }
    }
}

export class RecordZoneChangesResponse extends Response {
    constructor(database, zones = []) {
        super(database);
        this.zones = [];
        for (const zone of zones) {
            if (isErrorDictionary(zone)) { this.addError(zone); continue; }
            this.zones.push({...zone, records: (zone.records || []).map(decodeRecord)});
        }
    }
}

export class DatabaseChangesResponse extends ListResponse {
    constructor(database, json) {
        super(database, 'zones', json.zones);
        this.syncToken = json.syncToken;
        this.moreComing = Boolean(json.moreComing);
    }
}
