// The CloudKit JS–style program (fixtures/cloudkit-js-app.cjs) runs as its own Node process
// against a live server, changed from a CloudKit JS app only in its script and serverURL.
import {test, before, after} from 'node:test';
import assert from 'node:assert/strict';
import {execFile} from 'node:child_process';
import {promisify} from 'node:util';
import {fileURLToPath} from 'node:url';
import {startServer, CONTAINER} from './server.mjs';

let server;
before(async () => { server = await startServer(); });
after(() => server?.stop());

test('a program written from CloudKit JS documentation runs unchanged but for the script and the server address', async () => {
    const program = fileURLToPath(new URL('./fixtures/cloudkit-js-app.cjs', import.meta.url));
    const {stdout} = await promisify(execFile)(process.execPath, [program], {timeout: 60000,
        env: {...process.env, SERVER_URL: server.url, CONTAINER, API_TOKEN: server.apiToken, WEB_AUTH_TOKEN: server.developerToken}});
    const summary = JSON.parse(stdout.trim().split('\n').pop());
    assert.equal(summary.signedIn, true);
    assert.match(summary.userRecordName, /^_/);
    assert.equal(summary.saved, 5);
    assert.deepEqual(summary.queried, ['banana', 'cherry', 'damson', 'elder']);
    assert.equal(summary.dateIsDate, true);
    assert.equal(summary.renamed, 'blueberry');
    assert.equal(summary.deleted, true);
    assert.equal(summary.asset, 'hello, asset');
    assert.equal(summary.zoneAtomic, true);
    assert.deepEqual(summary.zones, ['Shopping', '_defaultZone']);
    assert.deepEqual(summary.changed, ['bread', 'milk']);
    assert.equal(summary.databaseChanges, true);
    assert.deepEqual(summary.subscriptions, ['entries']);
    assert.equal(summary.subscriptionQuery, 'Entry');
    assert.equal(summary.nobody, null);
    assert.deepEqual(summary.notification, {recordName: 'eggs', reason: 'RECORD_CREATED'});
    assert.equal(summary.discoverable, true);
    assert.equal(summary.afterZoneDelete, 'ZONE_NOT_FOUND');
});
