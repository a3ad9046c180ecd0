// Zones, atomic batches, and change feeds (zone changes and database changes) with sync tokens.
import {test, before, after} from 'node:test';
import assert from 'node:assert/strict';
import {startServer, sdk, unique} from './server.mjs';

let server;
let db;
before(async () => {
    server = await startServer();
    db = (await sdk(server)).getDefaultContainer().privateCloudDatabase;
});
after(() => server?.stop());

test('zones: save, fetch all, fetch, delete', async () => {
    const a = unique('za');
    const b = unique('zb');
    const saved = await db.saveRecordZones([{zoneID: {zoneName: a}}, b]);
    assert.equal(saved.hasErrors, false);
    assert.deepEqual(saved.zones.map((z) => z.zoneID.zoneName), [a, b]);
    const all = await db.fetchAllRecordZones();
    const names = all.zones.map((z) => z.zoneID.zoneName);
    assert.ok(names.includes('_defaultZone') && names.includes(a) && names.includes(b));
    const fetched = await db.fetchRecordZones([a, 'missing-zone']);
    assert.equal(fetched.zones.length, 1);
    assert.equal(fetched.zones[0].atomic, true);
    assert.equal(fetched.errors[0].ckErrorCode, 'ZONE_NOT_FOUND');
    assert.equal(fetched.errors[0].zoneID.zoneName, 'missing-zone');
    const deleted = await db.deleteRecordZones({zoneName: b});
    assert.deepEqual([deleted.zones[0].zoneID.zoneName, deleted.zones[0].deleted], [b, true]);
    assert.ok(!(await db.fetchAllRecordZones()).zones.some((z) => z.zoneID.zoneName === b));
    await assert.rejects(db.saveRecordZones(42), (e) => e.ckErrorCode === 'INVALID_ARGUMENTS');
});

test('a batch in a custom zone is atomic: one failure fails every operation', async () => {
    const zoneName = unique('atomic');
    await db.saveRecordZones(zoneName);
    const existing = (await db.saveRecords({recordType: 'Doc', recordName: 'one', zoneID: zoneName, fields: {}})).records[0];
    const response = await db.newRecordsBatch(zoneName)
        .create({recordType: 'Doc', recordName: 'two', fields: {}})
        .create({recordType: 'Doc', recordName: 'one', fields: {}})
        .commit();
    assert.equal(response.records.length, 0);
    assert.deepEqual(response.errors.map((e) => e.ckErrorCode).sort(), ['ATOMIC_ERROR', 'EXISTS']);
    assert.equal((await db.fetchRecords('two', {zoneID: zoneName})).errors[0].ckErrorCode, 'NOT_FOUND');
    const nonAtomic = await db.newRecordsBatch(zoneName)
        .create({recordType: 'Doc', recordName: 'two', fields: {}})
        .update({...existing, recordChangeTag: 'stale'})
        .commit({atomic: false});
    assert.deepEqual(nonAtomic.records.map((r) => r.recordName), ['two']);
    assert.equal(nonAtomic.errors[0].ckErrorCode, 'CONFLICT');
});

test('fetchRecordZoneChanges and fetchDatabaseChanges with sync tokens', async () => {
    const zoneName = unique('sync');
    const start = await db.fetchDatabaseChanges();
    assert.ok(start.syncToken);
    await db.saveRecordZones(zoneName);
    await db.saveRecords([1, 2, 3].map((n) => ({recordType: 'Task', recordName: `t${n}`, zoneID: zoneName, fields: {n: {value: n}}})));

    const databaseChanges = await db.fetchDatabaseChanges({syncToken: start.syncToken});
    assert.ok(databaseChanges.zones.some((z) => z.zoneID.zoneName === zoneName));
    assert.equal(databaseChanges.moreComing, false);

    const first = await db.fetchRecordZoneChanges({zoneID: {zoneName}});
    assert.equal(first.hasErrors, false);
    const [zone] = first.zones;
    assert.deepEqual(zone.records.map((r) => r.recordName).sort(), ['t1', 't2', 't3']);
    assert.ok(zone.syncToken);
    assert.equal(zone.moreComing, false);

    // Paging with resultsLimit.
    const paged = await db.fetchRecordZoneChanges({zoneID: zoneName, resultsLimit: 2});
    assert.equal(paged.zones[0].records.length, 2);
    assert.equal(paged.zones[0].moreComing, true);
    const rest = await db.fetchRecordZoneChanges({zoneID: zoneName, syncToken: paged.zones[0].syncToken});
    assert.equal(rest.zones[0].records.length, 1);

    const t2 = zone.records.find((r) => r.recordName === 't2');
    await db.saveRecords({...t2, fields: {n: {value: 20}}});
    await db.deleteRecords({recordName: 't3', zoneID: {zoneName}});
    const changes = await db.fetchRecordZoneChanges([{zoneID: zoneName, syncToken: zone.syncToken}]);
    const byName = Object.fromEntries(changes.zones[0].records.map((r) => [r.recordName, r]));
    assert.deepEqual(Object.keys(byName).sort(), ['t2', 't3']);
    assert.equal(byName.t2.fields.n.value, 20);
    assert.equal(byName.t3.deleted, true);
    const none = await db.fetchRecordZoneChanges({zoneID: zoneName, syncToken: changes.zones[0].syncToken});
    assert.equal(none.zones[0].records.length, 0);

    const inZone = await db.performQuery({recordType: 'Task', sortBy: [{fieldName: 'n'}]}, {zoneID: zoneName});
    assert.deepEqual(inZone.records.map((r) => r.recordName), ['t1', 't2']);
    const zoneWide = await db.performQuery({recordType: 'Task', filterBy: [{systemFieldName: 'recordName', comparator: 'EQUALS', fieldValue: {value: 't1'}}]}, {zoneWide: true});
    assert.ok(zoneWide.records.some((r) => r.zoneID.zoneName === zoneName));

    await db.deleteRecordZones(zoneName);
    const after = await db.fetchDatabaseChanges({syncToken: databaseChanges.syncToken});
    assert.ok(after.zones.some((z) => z.zoneID.zoneName === zoneName && z.deleted));

    const missing = await db.fetchRecordZoneChanges({zoneID: 'never-made'});
    assert.equal(missing.errors[0].ckErrorCode, 'ZONE_NOT_FOUND');
    await assert.rejects(db.fetchDatabaseChanges({syncToken: 'garbage'}), (e) => e.ckErrorCode === 'BAD_REQUEST');
});
