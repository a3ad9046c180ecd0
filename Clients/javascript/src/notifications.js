import {ErrorCode} from './constants.js';
import {CKError} from './errors.js';

// Notifications through the web courier (docs/protocol.md §7.2): a push token from tokens/create,
// registered for the user with tokens/register, then read from its courier URL — as Server-Sent
// Events where the runtime has EventSource (browsers), else by the long poll CloudKit JS uses.

const SCOPES = {1: 'PUBLIC', 2: 'PRIVATE', 3: 'SHARED'};
const REASONS = {1: 'RECORD_CREATED', 2: 'RECORD_UPDATED', 3: 'RECORD_DELETED'};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// CloudKit.Notification (with the fields of CloudKit.QueryNotification and
// CloudKit.RecordZoneNotification when it is one of those), from one courier frame.
export class CKNotification {
    constructor(frame) {
        const ck = frame.ck || {};
        const aps = frame.aps || {};
        const alert = typeof aps.alert === 'string' ? {body: aps.alert} : aps.alert || {};
        const part = ck.qry || ck.fet || ck.met || {};
        this.notificationID = ck.nid;
        this.notificationType = ck.qry ? 'query' : ck.fet ? 'recordZone' : ck.met ? 'database' : undefined;
        this.containerIdentifier = ck.cid;
        this.subscriptionID = part.sid;
        this.isPruned = false;
        this.alertBody = alert.body;
        this.alertLocalizationKey = alert['loc-key'];
        this.alertLocalizationArgs = alert['loc-args'];
        this.alertActionLocalizationKey = alert['action-loc-key'];
        this.alertLaunchImage = alert['launch-image'];
        this.title = alert.title;
        this.subtitle = alert.subtitle;
        this.badge = aps.badge;
        this.soundName = aps.sound;
        this.category = aps.category;
        this.databaseScope = SCOPES[part.dbs];
        if (part.zid) this.zoneID = {zoneName: part.zid, ownerRecordName: part.zoid};
        if (ck.qry) {
            this.recordName = part.rid;
            this.queryNotificationReason = REASONS[part.fo];
            this.recordFields = part.af || {};
            this.isPublicDatabase = part.dbs === 1;
        }
        this.payload = frame;
    }
}

export class NotificationChannel {
    constructor(transport, deliver, useEventSource) {
        this.transport = transport;
        this.deliver = deliver;
        this.useEventSource = useEventSource ?? typeof EventSource === 'function';
        this.running = false;
    }

    async start(apnsEnvironment) {
        const created = await this.transport.request('public', 'tokens/create', {apnsEnvironment});
        if (!created.webcourierURL || !created.apnsToken) {
            throw new CKError(ErrorCode.UNEXPECTED_SERVER_RESPONSE, 'tokens/create answered without webcourierURL and apnsToken');
        }
        await this.transport.request('public', 'tokens/register', {apnsToken: created.apnsToken, apnsEnvironment});
        this.url = created.webcourierURL;
        this.running = true;
        if (this.useEventSource) this.listen();
        else this.poll();
    }

    stop() {
        this.running = false;
        this.source?.close();
        this.abort?.abort();
    }

    frame(text) {
        if (!text || !text.trim()) return;
        let frame;
        try { frame = JSON.parse(text); } catch {
            this.transport.logger?.warn?.(`CloudKit: the web courier sent a frame that is not JSON: ${text.slice(0, 80)}`);
            return;
        }
        this.deliver(new CKNotification(frame));
    }

    listen() {
        this.source = new EventSource(`${this.url}/events`);
        this.source.onmessage = (event) => this.frame(event.data);
        this.source.onerror = () => {
            // EventSource reconnects by itself; a closed source (an unknown key, or no SSE) falls back.
            if (this.running && this.source.readyState === 2) { this.useEventSource = false; this.poll(); }
        };
    }

    async poll() {
        let failures = 0;
        while (this.running) {
            this.abort = new AbortController();
            try {
                const response = await this.transport.fetch.call(globalThis, this.url, {signal: this.abort.signal});
                const text = await response.text();
                if (response.status === 404) {
                    this.running = false;
                    this.transport.logger?.warn?.('CloudKit: the web courier no longer knows this token; call registerForNotifications() again');
                    return;
                }
                if (!response.ok) throw new Error(`HTTP ${response.status}`);
                failures = 0;
                this.frame(text);
            } catch (error) {
                if (!this.running) return;
                failures++;
                this.transport.logger?.warn?.(`CloudKit: web courier poll failed (${error.message}); retrying`);
                await sleep(Math.min(30000, 500 * 2 ** failures));
            }
        }
    }
}
