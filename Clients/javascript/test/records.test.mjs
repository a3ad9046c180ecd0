// Records against a live server: configure and the getters, every field type, queries with paging,
// fetch / save / delete, batches of every operation type, conflicts and per-record errors.
import {test, before, after} from 'node:test';
import assert from 'node:assert/strict';
import {startServer, sdk, CONTAINER, unique} from './server.mjs';

let server;
let CloudKit;
before(async () => {
    server = await startServer();
    CloudKit = await sdk(server);
});
after(() => server?.stop());

test('configure, the container getters and the constants', () => {
    const container = CloudKit.getDefaultContainer();
    assert.equal(container.containerIdentifier, CONTAINER);
    assert.equal(CloudKit.getContainer(CONTAINER), container);
    assert.deepEqual(CloudKit.getAllContainers(), [container]);
    assert.equal(container.publicCloudDatabase.databaseScope, 'PUBLIC');
    assert.equal(container.getDatabaseWithDatabaseScope(CloudKit.DatabaseScope.PRIVATE), container.privateCloudDatabase);
    assert.equal(container.getDatabaseWithDatabaseScope('SHARED'), container.sharedCloudDatabase);
    assert.equal(CloudKit.QueryFilterComparator.LIST_CONTAINS_ANY, 'LIST_CONTAINS_ANY');
    assert.equal(CloudKit.ReferenceAction.DELETE_SELF, 'DELETE_SELF');
    assert.equal(CloudKit.SubscriptionType.QUERY, 'query');
    assert.equal(CloudKit.ShareParticipantPermission.READ_WRITE, 'READ_WRITE');
    assert.equal(CloudKit.CKError.CONFLICT, 'CONFLICT');
    assert.throws(() => CloudKit.getContainer('iCloud.not.configured'), (e) => e.ckErrorCode === 'CONFIGURATION_ERROR' && /not configured/.test(e.reason));
    assert.throws(() => container.getDatabaseWithDatabaseScope('OTHER'), (e) => e.ckErrorCode === 'INVALID_ARGUMENTS');
    assert.throws(() => CloudKit.configure({containers: []}), (e) => e.ckErrorCode === 'CONFIGURATION_ERROR');
    assert.throws(() => CloudKit.configure({containers: [{containerIdentifier: 'x', apiTokenAuth: {apiToken: 't'}}]}),
        (e) => e.ckErrorCode === 'CONFIGURATION_ERROR' && /serverURL/.test(e.reason));
    assert.throws(() => CloudKit.configure({serverURL: server.url, containers: [{containerIdentifier: 'x', environment: 'staging', apiTokenAuth: {apiToken: 't'}}]}),
        (e) => /development/.test(e.reason));
});

test('every field type round-trips through save and fetch', async () => {
    const db = CloudKit.getDefaultContainer().privateCloudDatabase;
    const target = (await db.saveRecords({recordType: 'Target', fields: {name: {value: 'target'}}})).records[0];
    const when = new Date('2026-03-04T05:06:07.089Z');
    const bytes = Buffer.from([0, 1, 2, 250, 255]).toString('base64');
    const location = {latitude: 47.37, longitude: 8.54, horizontalAccuracy: 5, altitude: 408, speed: 1.5, course: 90, verticalAccuracy: 3, timestamp: 1760000000000};
    const reference = {recordName: target.recordName, action: CloudKit.ReferenceAction.NONE};
    const fields = {
        string: {value: 'héllo ✓'},
        int64: {value: 9007199254740991},
        double: {value: 2.5},
        timestamp: {value: when},
        bytes: {value: bytes, type: 'BYTES'},
        rawBytes: {value: new Uint8Array([9, 8, 7]), type: 'BYTES'},
        reference: {value: reference},
        location: {value: location},
        strings: {value: ['a', 'b']},
        int64s: {value: [1, -2, 3]},
        doubles: {value: [1.5, -2.25]},
        timestamps: {value: [when, new Date(0)]},
        bytesList: {value: [bytes], type: 'BYTES_LIST'},
        references: {value: [reference]},
        locations: {value: [location, {latitude: -33.9, longitude: 151.2}]},
        bare: 'a bare value is wrapped',
    };
    const saved = await db.saveRecords({recordType: 'AllTypes', fields});
    assert.equal(saved.hasErrors, false, saved.errors.map(String).join());
    const name = saved.records[0].recordName;
    const [record] = (await db.fetchRecords([name])).records;
    const f = record.fields;
    assert.equal(f.string.value, 'héllo ✓');
    assert.equal(f.string.type, 'STRING');
    assert.equal(f.int64.value, 9007199254740991);
    assert.equal(f.int64.type, 'INT64');
    assert.equal(f.double.value, 2.5);
    assert.equal(f.double.type, 'DOUBLE');
    assert.ok(f.timestamp.value instanceof Date);
    assert.equal(f.timestamp.value.getTime(), when.getTime());
    assert.equal(f.timestamp.type, 'TIMESTAMP');
    assert.equal(f.bytes.value, bytes);
    assert.equal(f.bytes.type, 'BYTES');
    assert.equal(f.rawBytes.value, Buffer.from([9, 8, 7]).toString('base64'));
    assert.equal(f.reference.type, 'REFERENCE');
    assert.equal(f.reference.value.recordName, target.recordName);
    assert.equal(f.location.type, 'LOCATION');
    for (const key of Object.keys(location)) assert.equal(f.location.value[key], location[key], key);
    assert.deepEqual([f.strings.type, f.strings.value], ['STRING_LIST', ['a', 'b']]);
    assert.deepEqual([f.int64s.type, f.int64s.value], ['INT64_LIST', [1, -2, 3]]);
    assert.deepEqual([f.doubles.type, f.doubles.value], ['DOUBLE_LIST', [1.5, -2.25]]);
    assert.equal(f.timestamps.type, 'TIMESTAMP_LIST');
    assert.deepEqual(f.timestamps.value.map((d) => d.getTime()), [when.getTime(), 0]);
    assert.deepEqual([f.bytesList.type, f.bytesList.value], ['BYTES_LIST', [bytes]]);
    assert.equal(f.references.type, 'REFERENCE_LIST');
    assert.equal(f.references.value[0].recordName, target.recordName);
    assert.equal(f.locations.type, 'LOCATION_LIST');
    assert.equal(f.locations.value[1].latitude, -33.9);
    assert.equal(f.bare.value, 'a bare value is wrapped');

    // The schema's type wins over the JSON shape: a DOUBLE field keeps an integral value a DOUBLE.
    const updated = await db.saveRecords({...record, fields: {double: {value: 3}, string: {value: null}}});
    assert.equal(updated.hasErrors, false, updated.errors.map(String).join());
    const again = (await db.fetchRecords(name)).records[0];
    assert.deepEqual([again.fields.double.value, again.fields.double.type], [3, 'DOUBLE']);
    assert.equal(again.fields.string, undefined, 'a null value clears the field');
    assert.equal(again.fields.int64.value, 9007199254740991, 'an update keeps the fields it does not send');
});

test('bad field values are refused before anything is sent', async () => {
    const db = CloudKit.getDefaultContainer().privateCloudDatabase;
    await assert.rejects(db.saveRecords({recordType: 'Bad', fields: {when: {value: new Date('nonsense')}}}),
        (e) => e.ckErrorCode === 'INVALID_ARGUMENTS' && /when/.test(e.reason));
    await assert.rejects(db.saveRecords({recordType: 'Bad', fields: {n: {value: Infinity}}}), (e) => /finite/.test(e.reason));
    await assert.rejects(db.saveRecords({fields: {}}), (e) => /recordType/.test(e.reason));
    await assert.rejects(db.fetchRecords([42]), (e) => e.ckErrorCode === 'INVALID_ARGUMENTS');
    await assert.rejects(db.performQuery({}), (e) => /recordType/.test(e.reason));
    await assert.rejects(db.performQuery({recordType: 'X', filterBy: [{fieldName: 'a', fieldValue: {value: 1}}]}), (e) => /comparator/.test(e.reason));
});

test('performQuery: filters, sorting, desiredKeys, resultsLimit and paging by passing the response back', async () => {
    const db = CloudKit.getDefaultContainer().publicCloudDatabase;
    const tag = unique('q');
    const records = Array.from({length: 23}, (_, i) => ({recordType: 'Item', fields: {tag: {value: tag}, rank: {value: i}, label: {value: `item ${i}`}, day: {value: new Date(Date.UTC(2026, 0, 1 + i))}}}));
    const saved = await db.saveRecords(records);
    assert.equal(saved.records.length, 23);
    const query = {
        recordType: 'Item',
        filterBy: [
            {fieldName: 'tag', comparator: CloudKit.QueryFilterComparator.EQUALS, fieldValue: {value: tag}},
            {fieldName: 'day', comparator: CloudKit.QueryFilterComparator.GREATER_THAN_OR_EQUALS, fieldValue: {value: new Date(Date.UTC(2026, 0, 3))}},
        ],
        sortBy: [{fieldName: 'rank', ascending: false}],
    };
    let response = await db.performQuery(query, {resultsLimit: 5, desiredKeys: ['rank']});
    const ranks = [];
    let pages = 1;
    ranks.push(...response.records.map((r) => r.fields.rank.value));
    assert.equal(response.moreComing, true);
    assert.ok(response.continuationMarker);
    assert.equal(response.records[0].fields.label, undefined, 'desiredKeys narrows the fields');
    while (response.moreComing) {
        response = await db.performQuery(response);
        pages++;
        ranks.push(...response.records.map((r) => r.fields.rank.value));
    }
    assert.equal(pages, 5);
    assert.deepEqual(ranks, Array.from({length: 21}, (_, i) => 22 - i));
    const inList = await db.performQuery({recordType: 'Item', filterBy: [
        {fieldName: 'tag', comparator: 'EQUALS', fieldValue: {value: tag}},
        {fieldName: 'rank', comparator: 'IN', fieldValue: {value: [1, 4, 7]}}]});
    assert.deepEqual(inList.records.map((r) => r.fields.rank.value).sort((a, b) => a - b), [1, 4, 7]);
    const days = await db.performQuery({recordType: 'Item', filterBy: [
        {fieldName: 'tag', comparator: 'EQUALS', fieldValue: {value: tag}},
        {fieldName: 'day', comparator: 'IN', fieldValue: {value: [new Date(Date.UTC(2026, 0, 2)), new Date(Date.UTC(2026, 0, 5))]}}]});
    assert.deepEqual(days.records.map((r) => r.fields.rank.value).sort((a, b) => a - b), [1, 4]);
    await assert.rejects(db.performQuery(response), (e) => /moreComing/.test(e.reason));
});

test('performQuery with Stratus OR and NOT groups, and countRecords', async () => {
    const db = CloudKit.getDefaultContainer().publicCloudDatabase;
    const tag = unique('or');
    await db.saveRecords(Array.from({length: 6}, (_, i) => ({recordType: 'Item', recordName: `${tag}-${i}`, fields: {tag: {value: tag}, rank: {value: i}}})));
    const query = {recordType: 'Item', filterBy: [
        {fieldName: 'tag', comparator: 'EQUALS', fieldValue: {value: tag}},
        {anyOf: [{fieldName: 'rank', comparator: 'LESS_THAN', fieldValue: {value: 2}}, {not: {fieldName: 'rank', comparator: 'LESS_THAN', fieldValue: {value: 4}}}]}],
        sortBy: [{fieldName: 'rank', ascending: true}]};
    const response = await db.performQuery(query);
    assert.deepEqual(response.records.map((r) => r.fields.rank.value), [0, 1, 4, 5]);
    assert.equal(await db.countRecords(query), 4);
    assert.equal(await db.countRecords({recordType: 'Item', filterBy: [{fieldName: 'tag', comparator: 'EQUALS', fieldValue: {value: tag}}]}), 6);
    await assert.rejects(db.countRecords({recordType: 'Item', filterBy: [{anyOf: []}]}), (e) => /query\.filterBy\[0\]\.anyOf/.test(e.reason));
    await assert.rejects(db.performQuery({recordType: 'Item', filterBy: [{anyOf: [{fieldName: 'rank'}]}]}), (e) => /query\.filterBy\[0\]\.anyOf\[0\] has no comparator/.test(e.reason));
});

test('performQuery: NEAR a location, token search and list comparators', async () => {
    const db = CloudKit.getDefaultContainer().publicCloudDatabase;
    const tag = unique('geo');
    await db.saveRecords([
        {recordType: 'Place', recordName: `${tag}-zurich`, fields: {tag: {value: tag}, at: {value: {latitude: 47.3769, longitude: 8.5417}}, text: {value: 'Lake and old town'}, kinds: {value: ['city', 'lake']}}},
        {recordType: 'Place', recordName: `${tag}-bern`, fields: {tag: {value: tag}, at: {value: {latitude: 46.948, longitude: 7.4474}}, text: {value: 'Old town and river'}, kinds: {value: ['city', 'river']}}},
    ]);
    const near = await db.performQuery({recordType: 'Place', filterBy: [
        {fieldName: 'tag', comparator: 'EQUALS', fieldValue: {value: tag}},
        {fieldName: 'at', comparator: CloudKit.QueryFilterComparator.NEAR, fieldValue: {value: {latitude: 47.37, longitude: 8.54}}, distance: 20000}]});
    assert.deepEqual(near.records.map((r) => r.recordName), [`${tag}-zurich`]);
    const tokens = await db.performQuery({recordType: 'Place', filterBy: [
        {fieldName: 'tag', comparator: 'EQUALS', fieldValue: {value: tag}},
        {fieldName: 'text', comparator: 'CONTAINS_ALL_TOKENS', fieldValue: {value: 'old RIVER'}}]});
    assert.deepEqual(tokens.records.map((r) => r.recordName), [`${tag}-bern`]);
    const listed = await db.performQuery({recordType: 'Place', filterBy: [
        {fieldName: 'tag', comparator: 'EQUALS', fieldValue: {value: tag}},
        {fieldName: 'kinds', comparator: 'LIST_CONTAINS', fieldValue: {value: 'lake'}}]});
    assert.deepEqual(listed.records.map((r) => r.recordName), [`${tag}-zurich`]);
});

test('fetchRecords reports a missing record in errors and returns the others', async () => {
    const db = CloudKit.getDefaultContainer().privateCloudDatabase;
    const saved = (await db.saveRecords({recordType: 'Note', recordName: unique('n'), fields: {title: {value: 'x'}}})).records[0];
    const response = await db.fetchRecords([saved.recordName, 'no-such-record'], {desiredKeys: ['title']});
    assert.equal(response.hasErrors, true);
    assert.equal(response.records.length, 1);
    assert.equal(response.records[0].recordName, saved.recordName);
    const [error] = response.errors;
    assert.equal(error.isCKError, true);
    assert.equal(error.ckErrorCode, CloudKit.CKError.NOT_FOUND);
    assert.equal(error.serverErrorCode, 'NOT_FOUND');
    assert.equal(error.recordName, 'no-such-record');
    assert.ok(error.reason);
});

test('a stale recordChangeTag is a CONFLICT carrying the server record; deleteRecords by name and by record', async () => {
    const db = CloudKit.getDefaultContainer().privateCloudDatabase;
    const first = (await db.saveRecords({recordType: 'Note', fields: {title: {value: 'v1'}}})).records[0];
    const second = (await db.saveRecords({...first, fields: {title: {value: 'v2'}}})).records[0];
    assert.notEqual(second.recordChangeTag, first.recordChangeTag);
    const stale = await db.saveRecords({...first, fields: {title: {value: 'stale'}}});
    assert.equal(stale.hasErrors, true);
    const [conflict] = stale.errors;
    assert.equal(conflict.ckErrorCode, 'CONFLICT');
    assert.equal(conflict.recordName, first.recordName);
    assert.equal(conflict.serverRecord.fields.title.value, 'v2');
    assert.equal(conflict.serverRecord.recordChangeTag, second.recordChangeTag);
    const exists = await db.saveRecords({recordType: 'Note', recordName: first.recordName, fields: {}});
    assert.equal(exists.errors[0].ckErrorCode, 'EXISTS');
    const staleDelete = await db.deleteRecords(first);
    assert.equal(staleDelete.errors[0].ckErrorCode, 'CONFLICT');
    const deleted = await db.deleteRecords(second);
    assert.equal(deleted.hasErrors, false);
    assert.deepEqual([deleted.records[0].recordName, deleted.records[0].deleted], [first.recordName, true]);
    const other = (await db.saveRecords({recordType: 'Note', fields: {}})).records[0];
    assert.equal((await db.deleteRecords(other.recordName)).records[0].deleted, true);
    assert.equal((await db.deleteRecords('never-there')).errors[0].ckErrorCode, 'NOT_FOUND');
});

test('newRecordsBatch with every operation type in one commit', async () => {
    const db = CloudKit.getDefaultContainer().privateCloudDatabase;
    const names = Array.from({length: 6}, () => unique('b'));
    const seeded = (await db.saveRecords(names.slice(0, 5).map((recordName, i) => ({recordType: 'Doc', recordName, fields: {n: {value: i}, keep: {value: 'kept'}}})))).records;
    assert.equal(seeded.length, 5);
    const batch = db.newRecordsBatch()
        .create({recordType: 'Doc', recordName: names[5], fields: {n: {value: 5}}})
        .update({...seeded[0], fields: {n: {value: 100}}})
        .forceUpdate({recordName: names[1], recordType: 'Doc', fields: {n: {value: 101}}})
        .replace({...seeded[2], fields: {n: {value: 102}}})
        .forceReplace({recordName: names[3], recordType: 'Doc', fields: {n: {value: 103}}})
        .delete(seeded[4]);
    const response = await batch.commit();
    assert.equal(response.hasErrors, false, response.errors.map(String).join());
    assert.equal(response.records.length, 6);
    const fetched = await db.fetchRecords(names);
    const byName = Object.fromEntries(fetched.records.map((r) => [r.recordName, r]));
    assert.equal(byName[names[0]].fields.n.value, 100);
    assert.equal(byName[names[0]].fields.keep.value, 'kept', 'update keeps other fields');
    assert.equal(byName[names[1]].fields.n.value, 101);
    assert.equal(byName[names[2]].fields.keep, undefined, 'replace drops other fields');
    assert.equal(byName[names[3]].fields.keep, undefined);
    assert.equal(byName[names[5]].fields.n.value, 5);
    assert.deepEqual(fetched.errors.map((e) => e.recordName), [names[4]]);
    const forceDelete = await db.newRecordsBatch().forceDelete(names[5]).forceDelete([names[0]]).commit();
    assert.deepEqual(forceDelete.records.map((r) => r.deleted), [true, true]);
});

test('records in several zones are sent one zone per request and answered in order', async () => {
    const db = CloudKit.getDefaultContainer().privateCloudDatabase;
    const zoneName = unique('zone');
    await db.saveRecordZones({zoneName});
    const saved = await db.saveRecords([
        {recordType: 'Doc', recordName: 'in-default', fields: {}},
        {recordType: 'Doc', recordName: 'in-custom', zoneID: {zoneName}, fields: {}},
    ]);
    assert.equal(saved.hasErrors, false, saved.errors.map(String).join());
    assert.deepEqual(saved.records.map((r) => r.zoneID.zoneName), ['_defaultZone', zoneName]);
    const fetched = await db.fetchRecords([{recordName: 'in-custom', zoneID: {zoneName}}, 'in-default']);
    assert.deepEqual(fetched.records.map((r) => r.recordName), ['in-custom', 'in-default']);
});

test('the private database without a user is AUTHENTICATION_REQUIRED with the sign-in page', async () => {
    const anonymous = await sdk(server, {token: null});
    const error = await anonymous.getDefaultContainer().privateCloudDatabase.performQuery({recordType: 'Note'}).catch((e) => e);
    assert.equal(error.ckErrorCode, 'AUTHENTICATION_REQUIRED');
    assert.equal(error.isServerError, true);
    assert.match(error.redirectURL, /\/signin\?/);
    assert.ok(error.uuid);
    assert.equal(await anonymous.getDefaultContainer().setUpAuth(), null);
});
