// Server functions (a Stratus extension) from the SDK, against Examples/server-hooks: its
// beforeSave hook refuses and completes orders, its afterSave hook counts them, and its
// orderCount function answers the count.
import {test, before, after} from 'node:test';
import assert from 'node:assert/strict';
import {startServer, sdk} from './server.mjs';

let server;
let CloudKit;
before(async () => {
    const app = process.env.STRATUS_APP_BINARY;
    if (!app) throw new Error('set STRATUS_APP_BINARY to the server-hooks executable (scripts/test-javascript does)');
    server = await startServer([], app);
    CloudKit = await sdk(server);
});
after(() => server?.stop());

test('a hook refuses a bad record; callFunction answers what the after hook counted', async () => {
    const container = CloudKit.getDefaultContainer();
    const db = container.publicCloudDatabase;
    const refused = await db.saveRecords({recordType: 'Order', recordName: 'none', fields: {quantity: {value: 0}}});
    assert.equal(refused.hasErrors, true);
    assert.equal(refused.errors[0].ckErrorCode, 'BAD_REQUEST');
    assert.match(refused.errors[0].reason, /quantity of at least 1/);
    const saved = await db.saveRecords({recordType: 'Order', recordName: 'two', fields: {quantity: {value: 2}, unitPrice: {value: 1.5}}});
    assert.equal(saved.records[0].fields.total.value, 3);
    let answer;
    for (let attempt = 0; attempt < 50; attempt++) {
        answer = await container.callFunction('orderCount');
        if (answer.orders === 1) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.deepEqual(answer, {orders: 1});
});

test('calling a function the server does not have rejects with NOT_FOUND', async () => {
    const container = CloudKit.getDefaultContainer();
    await assert.rejects(container.callFunction('noSuchFunction', {a: 1}), (error) => error.ckErrorCode === 'NOT_FOUND' && /noSuchFunction/.test(error.reason));
    await assert.rejects(container.callFunction(''), (error) => error.ckErrorCode === 'INVALID_ARGUMENTS');
});
