// Subscriptions, a notification arriving through the web courier, and user identities.
import {test, before, after} from 'node:test';
import assert from 'node:assert/strict';
import {startServer, sdk, unique} from './server.mjs';

let server;
let CloudKit;
before(async () => {
    server = await startServer();
    CloudKit = await sdk(server);
});
after(async () => {
    await CloudKit?.getDefaultContainer().unregisterForNotifications();
    await server?.stop();
});

test('subscriptions: save, fetch all, fetch, delete', async () => {
    const db = CloudKit.getDefaultContainer().privateCloudDatabase;
    const zoneName = unique('subs');
    await db.saveRecordZones(zoneName);
    const saved = await db.saveSubscriptions([
        {subscriptionID: 'notes', subscriptionType: CloudKit.SubscriptionType.QUERY, firesOn: ['create', 'update', 'delete'],
            query: {recordType: 'Note', filterBy: [{fieldName: 'folder', comparator: 'EQUALS', fieldValue: {value: 'inbox'}}]},
            notificationInfo: {alertBody: 'note changed', shouldSendContentAvailable: true}},
        {subscriptionID: 'zone', subscriptionType: CloudKit.SubscriptionType.ZONE, zoneID: zoneName},
    ]);
    assert.equal(saved.hasErrors, false, saved.errors.map(String).join());
    assert.deepEqual(saved.subscriptions.map((s) => s.subscriptionID), ['notes', 'zone']);
    const all = await db.fetchAllSubscriptions();
    assert.deepEqual(all.subscriptions.map((s) => s.subscriptionID).sort(), ['notes', 'zone']);
    const some = await db.fetchSubscriptions(['zone', 'nope']);
    assert.equal(some.subscriptions[0].zoneID.zoneName, zoneName);
    assert.equal(some.errors[0].ckErrorCode, 'NOT_FOUND');
    const deleted = await db.deleteSubscriptions('zone');
    assert.equal(deleted.subscriptions[0].deleted, true);
    await assert.rejects(db.saveSubscriptions({subscriptionID: 'x'}), (e) => /subscriptionType/.test(e.reason));
});

test('a saved record arrives as a query notification through the web courier', async () => {
    const container = CloudKit.getDefaultContainer();
    const db = container.privateCloudDatabase;
    await db.saveSubscriptions({subscriptionID: 'tasks', subscriptionType: 'query', firesOn: ['create', 'update'],
        query: {recordType: 'Task'}, notificationInfo: {alertBody: 'task!', desiredKeys: ['title']}});
    const arrived = [];
    let wake;
    const listener = (notification) => { arrived.push(notification); wake?.(); };
    const removed = [];
    const removedListener = (notification) => removed.push(notification);
    container.addNotificationListener(listener);
    container.addNotificationListener(removedListener);
    container.removeNotificationListener(removedListener);
    assert.equal(await container.registerForNotifications(), container);
    assert.equal(container.isRegisteredForNotifications, true);
    const name = unique('task');
    const waiting = new Promise((resolve) => { wake = resolve; });
    await db.saveRecords({recordType: 'Task', recordName: name, fields: {title: {value: 'write tests'}}});
    let timer;
    await Promise.race([waiting, new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('no notification within 15 s')), 15000); })]);
    clearTimeout(timer);
    const [notification] = arrived;
    assert.equal(removed.length, 0, 'a removed listener hears nothing');
    assert.ok(notification instanceof CloudKit.Notification);
    assert.equal(notification.notificationType, CloudKit.NotificationType.QUERY);
    assert.equal(notification.subscriptionID, 'tasks');
    assert.equal(notification.recordName, name);
    assert.equal(notification.queryNotificationReason, CloudKit.QueryNotificationReason.RECORD_CREATED);
    assert.equal(notification.databaseScope, 'PRIVATE');
    assert.equal(notification.alertBody, 'task!');
    assert.equal(notification.recordFields.title, 'write tests');
    assert.equal(notification.containerIdentifier, container.containerIdentifier);
    container.removeNotificationListener(listener);
    await container.unregisterForNotifications();
    assert.equal(container.isRegisteredForNotifications, false);
});

test('user identities: the current user and discovery', async () => {
    const container = CloudKit.getDefaultContainer();
    const me = await container.fetchCurrentUserIdentity();
    assert.match(me.userRecordName, /^_[0-9a-f]{32}$/);
    assert.deepEqual(await container.setUpAuth(), me);
    const email = `${unique('found')}@example.com`;
    const other = await server.createUser('Found Person', ['--email', email, '--discoverable']);
    const found = await container.discoverUserIdentityWithEmailAddress(email);
    assert.equal(found.userRecordName, other.userRecordName);
    assert.equal(found.nameComponents.givenName !== undefined || found.nameComponents.familyName !== undefined, true);
    assert.equal((await container.discoverUserIdentityWithUserRecordName(other.userRecordName)).userRecordName, other.userRecordName);
    assert.equal(await container.discoverUserIdentityWithEmailAddress('nobody@example.com'), null);
    assert.equal(await container.discoverUserIdentityWithPhoneNumber('+15550100'), null);
    const all = await container.discoverAllUserIdentities();
    assert.ok(all.users.some((u) => u.userRecordName === other.userRecordName));
    const many = await container.discoverUserIdentities([{emailAddress: email}, {userRecordName: other.userRecordName}]);
    assert.equal(many.users.length, 2);
});
