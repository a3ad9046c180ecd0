import {invalidArguments} from './errors.js';
import {encodeField, encodeFields} from './values.js';
import {uploadAssets} from './assets.js';
import {groupByZone, perZone, zoneIDOf} from './zones.js';
import {DatabaseChangesResponse, ListResponse, QueryResponse, RecordsResponse, RecordZoneChangesResponse} from './responses.js';
import {RecordsBatchBuilder} from './batch.js';

// CloudKit.Database: the public, private or shared database of a container.

const SERVER_KEYS = new Set(['zoneID', 'created', 'modified', 'deleted', 'pluginFields', 'shortGUID', 'url', 'owner', 'currentUserParticipant']);

const asList = (value, what) => {
    if (value === undefined || value === null) throw invalidArguments(`give ${what} (one, or an array)`);
    return Array.isArray(value) ? value : [value];
};

// Stratus filter groups (docs/protocol.md §5): {anyOf: [...]}, {allOf: [...]} or {not: filter},
// nested; CloudKit itself has no OR or NOT.
const GROUP_KEYS = ['anyOf', 'allOf', 'not'];

function encodeFilter(filter, path) {
    if (!filter || typeof filter !== 'object') throw invalidArguments(`${path} must be an object`);
    const groupKey = filter.comparator ? undefined : GROUP_KEYS.find((key) => filter[key] !== undefined);
    if (groupKey === 'not') return {not: encodeFilter(filter.not, `${path}.not`)};
    if (groupKey) {
        return {[groupKey]: asList(filter[groupKey], `${path}.${groupKey}`).map((member, i) => encodeFilter(member, `${path}.${groupKey}[${i}]`))};
    }
    if (!filter.comparator) throw invalidArguments(`${path} has no comparator; use a CloudKit.QueryFilterComparator, or a Stratus group {anyOf}, {allOf} or {not}`);
    if (!filter.fieldName && !filter.systemFieldName) throw invalidArguments(`${path} names no fieldName or systemFieldName`);
    const out = {...filter};
    if (filter.fieldValue !== undefined) out.fieldValue = encodeField(filter.fieldValue, `${path}.fieldValue`);
    return out;
}

export function encodeQuery(query) {
    if (!query || typeof query !== 'object') throw invalidArguments('performQuery needs a query {recordType, filterBy?, sortBy?}');
    if (typeof query.recordType !== 'string' || !query.recordType) throw invalidArguments('the query has no recordType');
    const out = {recordType: query.recordType};
    if (query.filterBy) out.filterBy = asList(query.filterBy, 'filterBy').map((filter, i) => encodeFilter(filter, `query.filterBy[${i}]`));
    if (query.sortBy) out.sortBy = asList(query.sortBy, 'sortBy');
    return out;
}

function recordRef(value, what) {
    if (typeof value === 'string') return {recordName: value};
    if (value && typeof value === 'object' && typeof value.recordName === 'string') return value;
    throw invalidArguments(`${what} must be a record name or a record with recordName, not ${JSON.stringify(value)}`);
}

function commonOptions(options, body) {
    for (const key of ['desiredKeys', 'numbersAsStrings', 'resultsLimit', 'zoneWide', 'atomic']) {
        if (options[key] !== undefined) body[key] = options[key];
    }
    return body;
}

export class Database {
    constructor(container, databaseScope) {
        this.container = container;
        this.databaseScope = databaseScope;
        this.name = databaseScope.toLowerCase();
    }

    get containerIdentifier() { return this.container.containerIdentifier; }

    request(operation, body) { return this.container.transport.request(this.name, operation, body); }

    // --- records ---

    async performQuery(query, options = {}) {
        if (query instanceof QueryResponse) {
            if (!query.continuationMarker) throw invalidArguments('this QueryResponse has no more records (moreComing is false)');
            options = {...query.options, ...options, continuationMarker: query.continuationMarker};
            query = query.query;
        }
        const body = commonOptions(options, {query: encodeQuery(query)});
        const zoneID = zoneIDOf(options.zoneID, 'options.zoneID');
        if (zoneID) body.zoneID = zoneID;
        if (options.continuationMarker) body.continuationMarker = options.continuationMarker;
        const json = await this.request('records/query', body);
        const {continuationMarker, ...kept} = options;
        return new QueryResponse(this, json, query, kept);
    }

    // Stratus extension (records/count): how many records the query returns over all its pages, to
    // this caller. Options: zoneID, zoneWide.
    async countRecords(query, options = {}) {
        const body = {query: encodeQuery(query)};
        const zoneID = zoneIDOf(options.zoneID, 'options.zoneID');
        if (zoneID) body.zoneID = zoneID;
        if (options.zoneWide !== undefined) body.zoneWide = options.zoneWide;
        const json = await this.request('records/count', body);
        return json.count;
    }

    async fetchRecords(records, options = {}) {
        const refs = asList(records, 'the records to fetch').map((item, i) => recordRef(item, `records[${i}]`));
        const fallback = zoneIDOf(options.zoneID, 'options.zoneID');
        const groups = groupByZone(refs, (ref) => zoneIDOf(ref.zoneID), fallback);
        const items = await perZone(groups, refs.length, async ({zoneID, entries}) => {
            const body = commonOptions(options, {
                records: entries.map(({item}) => (item.desiredKeys ? {recordName: item.recordName, desiredKeys: item.desiredKeys} : {recordName: item.recordName})),
            });
            if (zoneID) body.zoneID = zoneID;
            return (await this.request('records/lookup', body)).records || [];
        });
        return new RecordsResponse(this, items);
    }

    // A record with a recordChangeTag is updated (and checked against the server's copy); one without
    // is created.
    async saveRecords(records, options = {}) {
        const operations = asList(records, 'the records to save').map((record) => ({
            operationType: record && record.recordChangeTag ? 'update' : 'create', record}));
        return this.modifyRecords(operations, options);
    }

    // A record with a recordChangeTag is deleted only if unchanged on the server; a name, or a record
    // without a tag, is deleted whatever its state.
    async deleteRecords(records, options = {}) {
        const operations = asList(records, 'the records to delete').map((record, i) => {
            const ref = recordRef(record, `records[${i}]`);
            return {operationType: ref.recordChangeTag ? 'delete' : 'forceDelete', record: ref};
        });
        return this.modifyRecords(operations, options);
    }

    newRecordsBatch(zoneID) { return new RecordsBatchBuilder(this, zoneIDOf(zoneID)); }

    // records/modify for [{operationType, record}], one request per zone.
    async modifyRecords(operations, options = {}) {
        const wire = operations.map(({operationType, record}, i) => {
            if (!record || typeof record !== 'object') throw invalidArguments(`operation ${i} (${operationType}) has no record`);
            // Everything but what the server writes (a share record's forRecord, participants and
            // publicPermission go along); the zone is the request's.
            const copy = {};
            for (const key of Object.keys(record)) {
                if (!SERVER_KEYS.has(key) && record[key] !== undefined) copy[key] = record[key];
            }
            // Fields are checked and put in wire form now, so a bad value fails before any file is
            // uploaded; files stay as they are until assets.js has uploaded them.
            if (record.fields) copy.fields = encodeFields(record.fields, `records[${i}]`, true);
            if (operationType === 'create' && !copy.recordType) throw invalidArguments(`operation ${i}: a record to create needs a recordType`);
            if (operationType !== 'create' && !copy.recordName) throw invalidArguments(`operation ${i}: ${operationType} needs the record's recordName`);
            return {operationType, record: copy, zoneID: zoneIDOf(record.zoneID, `records[${i}].zoneID`)};
        });
        const fallback = zoneIDOf(options.zoneID, 'options.zoneID');
        const groups = groupByZone(wire, (op) => op.zoneID, fallback);
        const items = await perZone(groups, wire.length, async ({zoneID, entries}) => {
            const records = entries.map(({item}) => item.record);
            await uploadAssets(this, records, zoneID);
            const body = commonOptions(options, {
                operations: entries.map(({item}) => ({operationType: item.operationType, record: item.record})),
            });
            if (zoneID) body.zoneID = zoneID;
            return (await this.request('records/modify', body)).records || [];
        });
        return new RecordsResponse(this, items);
    }

    // --- zones ---

    async fetchAllRecordZones() {
        return new ListResponse(this, 'zones', (await this.request('zones/list')).zones);
    }

    async fetchRecordZones(zoneIDs) {
        const zones = asList(zoneIDs, 'the zone IDs to fetch').map((zone, i) => zoneIDOf(zone, `zoneIDs[${i}]`));
        return new ListResponse(this, 'zones', (await this.request('zones/lookup', {zones})).zones);
    }

    async saveRecordZones(zones) { return this.modifyZones('create', zones); }

    async deleteRecordZones(zoneIDs) { return this.modifyZones('delete', zoneIDs); }

    async modifyZones(operationType, zones) {
        const operations = asList(zones, 'the zones').map((zone, i) => ({operationType, zone: {zoneID: zoneIDOf(zone, `zones[${i}]`)}}));
        return new ListResponse(this, 'zones', (await this.request('zones/modify', {operations})).zones);
    }

    // --- changes ---

    async fetchDatabaseChanges(options = {}) {
        if (typeof options === 'string') options = {syncToken: options};
        const body = {};
        if (options.syncToken) body.syncToken = options.syncToken;
        if (options.resultsLimit) body.resultsLimit = options.resultsLimit;
        return new DatabaseChangesResponse(this, await this.request('changes/database', body));
    }

    async fetchRecordZoneChanges(options) {
        const zones = asList(options, 'the zones to fetch changes of (RecordZoneChangesOptions)').map((entry, i) => {
            const zone = {zoneID: zoneIDOf(entry.zoneID ?? entry, `options[${i}].zoneID`)};
            for (const key of ['syncToken', 'resultsLimit', 'desiredKeys', 'desiredRecordTypes']) {
                if (entry[key] !== undefined && entry[key] !== null) zone[key] = entry[key];
            }
            return zone;
        });
        return new RecordZoneChangesResponse(this, (await this.request('changes/zone', {zones})).zones);
    }

    // --- subscriptions ---

    async fetchAllSubscriptions() {
        return new ListResponse(this, 'subscriptions', (await this.request('subscriptions/list')).subscriptions);
    }

    async fetchSubscriptions(subscriptionIDs) {
        const subscriptions = asList(subscriptionIDs, 'the subscription IDs').map((id) => ({subscriptionID: typeof id === 'string' ? id : id.subscriptionID}));
        return new ListResponse(this, 'subscriptions', (await this.request('subscriptions/lookup', {subscriptions})).subscriptions);
    }

    async saveSubscriptions(subscriptions) {
        return this.modifySubscriptions(asList(subscriptions, 'the subscriptions to save').map((subscription, i) => {
            if (!subscription || !subscription.subscriptionType) throw invalidArguments(`subscriptions[${i}] has no subscriptionType; use a CloudKit.SubscriptionType`);
            const wire = {...subscription};
            if (subscription.query) wire.query = encodeQuery(subscription.query);
            if (subscription.zoneID) wire.zoneID = zoneIDOf(subscription.zoneID, `subscriptions[${i}].zoneID`);
            return {operationType: 'create', subscription: wire};
        }));
    }

    async deleteSubscriptions(subscriptionIDs) {
        return this.modifySubscriptions(asList(subscriptionIDs, 'the subscription IDs').map((id) => ({
            operationType: 'delete', subscription: {subscriptionID: typeof id === 'string' ? id : id.subscriptionID}})));
    }

    async modifySubscriptions(operations) {
        return new ListResponse(this, 'subscriptions', (await this.request('subscriptions/modify', {operations})).subscriptions);
    }
}
