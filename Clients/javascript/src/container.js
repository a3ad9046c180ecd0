import {DatabaseScope, ErrorCode} from './constants.js';
import {CKError, invalidArguments} from './errors.js';
import {Database} from './database.js';
import {ListResponse, Response} from './responses.js';
import {NotificationChannel} from './notifications.js';
import {openSignInWindow, renderButton, takeTokenFromLocation} from './auth.js';

// CloudKit.Container: a configured container — its databases, signing in and out, user identities,
// notifications and shares.

// A user identity in CloudKit JS's shape, from users/caller or a discovery answer.
function identityOf(user) {
    if (!user || !user.userRecordName) return undefined;
    const identity = {userRecordName: user.userRecordName, nameComponents: user.nameComponents || {}};
    if (user.lookupInfo) identity.lookupInfo = user.lookupInfo;
    else if (user.emailAddress) identity.lookupInfo = {emailAddress: user.emailAddress};
    if (user.emailAddress) identity.emailAddress = user.emailAddress;
    if (user.isDiscoverable !== undefined) identity.isDiscoverable = user.isDiscoverable;
    return identity;
}

export class Container {
    constructor(settings, transport) {
        this.containerIdentifier = settings.containerIdentifier;
        this.environment = settings.environment;
        this.apnsEnvironment = settings.apnsEnvironment;
        this.settings = settings;
        this.transport = transport;
        this.publicCloudDatabase = new Database(this, DatabaseScope.PUBLIC);
        this.privateCloudDatabase = new Database(this, DatabaseScope.PRIVATE);
        this.sharedCloudDatabase = new Database(this, DatabaseScope.SHARED);
        this.userIdentity = undefined;
        this.signInWaiters = [];
        this.signOutWaiters = [];
        this.listeners = [];
        this.channel = undefined;
        transport.onAuthenticationRequired = (error, usedToken) => {
            this.redirectURL = error.redirectURL || this.redirectURL;
            if (usedToken && this.userIdentity) this.signedOut();
            else this.renderSignIn();
        };
    }

    getDatabaseWithDatabaseScope(scope) {
        const database = {PUBLIC: this.publicCloudDatabase, PRIVATE: this.privateCloudDatabase, SHARED: this.sharedCloudDatabase}[String(scope).toUpperCase()];
        if (!database) throw invalidArguments(`unknown database scope ${scope}; use CloudKit.DatabaseScope.PUBLIC, PRIVATE or SHARED`);
        return database;
    }

    // --- signing in and out ---

    // Resolves to the signed-in user's identity, or null (and shows the sign-in button).
    async setUpAuth() {
        if (!this.settings.apiToken) return null;
        const handedOver = takeTokenFromLocation();
        if (handedOver) this.transport.webAuthToken = handedOver;
        try {
            const identity = await this.fetchCurrentUserIdentity();
            this.signedIn(identity);
            return identity;
        } catch (error) {
            if (error.ckErrorCode === ErrorCode.AUTHENTICATION_REQUIRED) return null;
            throw error;
        }
    }

    whenUserSignsIn() { return new Promise((resolve, reject) => this.signInWaiters.push({resolve, reject})); }

    whenUserSignsOut() { return new Promise((resolve) => this.signOutWaiters.push(resolve)); }

    signedIn(identity) {
        this.userIdentity = identity;
        renderButton(this.settings.signInButton, null);
        renderButton(this.settings.signOutButton, 'Sign out', () => this.signOut());
        for (const waiter of this.signInWaiters.splice(0)) waiter.resolve(identity);
    }

    signedOut() {
        this.userIdentity = null;
        this.transport.webAuthToken = null;
        renderButton(this.settings.signOutButton, null);
        this.renderSignIn();
        for (const resolve of this.signOutWaiters.splice(0)) resolve();
    }

    renderSignIn() {
        if (this.redirectURL) renderButton(this.settings.signInButton, 'Sign in', () => this.openSignIn());
    }

    openSignIn() {
        openSignInWindow(this.redirectURL, new URL(this.transport.serverURL).origin, async (token) => {
            this.transport.webAuthToken = token;
            try {
                this.signedIn(await this.fetchCurrentUserIdentity());
            } catch (error) {
                const failure = new CKError(ErrorCode.SIGN_IN_FAILED, `signed in, but the token did not work: ${error.reason || error.message}`);
                for (const waiter of this.signInWaiters.splice(0)) waiter.reject(failure);
            }
        });
    }

    // Ends the session on the server and forgets the token.
    async signOut() {
        const token = this.transport.webAuthToken;
        if (token) {
            const url = `${this.transport.serverURL}/signout?container=${encodeURIComponent(this.containerIdentifier)}&ckWebAuthToken=${encodeURIComponent(token)}`;
            try { await this.transport.send(url, {}, false); } catch (error) {
                if (error.ckErrorCode !== ErrorCode.AUTHENTICATION_REQUIRED) throw error;
            }
        }
        this.signedOut();
        // Learns the sign-in page's address again for the sign-in button.
        this.fetchCurrentUserIdentity().catch(() => {});
    }

    // --- server functions (a Stratus extension) ---

    // Calls the function `name` of an app's own Stratus server (POST /functions/1/{container}/
    // {environment}/{name}) with `input` as its JSON body, as this container's caller; resolves
    // with the function's JSON answer, rejects with a CKError.
    async callFunction(name, input = {}) {
        if (typeof name !== 'string' || name === '') throw invalidArguments('callFunction needs the function\'s name');
        return this.transport.send(this.transport.functionURL(name), input, true, {anyJSON: true});
    }

    // --- users ---

    async fetchCurrentUserIdentity() {
        const json = await this.transport.request('public', 'users/caller');
        const identity = identityOf(json) || identityOf(json.users && json.users[0]);
        if (!identity) throw new CKError(ErrorCode.UNEXPECTED_SERVER_RESPONSE, 'users/caller answered without a userRecordName');
        return identity;
    }

    async discoverAllUserIdentities() {
        return this.usersResponse(await this.transport.request('public', 'users/discover'));
    }

    async discoverUserIdentities(lookupInfos) {
        const list = Array.isArray(lookupInfos) ? lookupInfos : [lookupInfos];
        if (!list.length) throw invalidArguments('discoverUserIdentities needs lookup infos ({emailAddress}, {phoneNumber} or {userRecordName})');
        return this.usersResponse(await this.transport.request('public', 'users/discover', {lookupInfos: list}));
    }

    discoverUserIdentityWithEmailAddress(emailAddress) { return this.discoverOne({emailAddress}); }

    discoverUserIdentityWithPhoneNumber(phoneNumber) { return this.discoverOne({phoneNumber}); }

    discoverUserIdentityWithUserRecordName(userRecordName) { return this.discoverOne({userRecordName}); }

    // Resolves to the identity, or null when nobody discoverable matches.
    async discoverOne(lookupInfo) {
        const response = await this.discoverUserIdentities([lookupInfo]);
        if (response.hasErrors) throw response.errors[0];
        return response.users[0] || null;
    }

    usersResponse(json) {
        const response = new ListResponse(undefined, 'users', json.users);
        response.containerIdentifier = this.containerIdentifier;
        response.users = response.users.map((user) => identityOf(user) || {lookupInfo: user.lookupInfo}).filter((user) => user.userRecordName);
        return response;
    }

    // --- notifications ---

    get isRegisteredForNotifications() { return Boolean(this.channel && this.channel.running); }

    async registerForNotifications() {
        if (this.isRegisteredForNotifications) return this;
        const channel = new NotificationChannel(this.transport, (notification) => {
            for (const listener of this.listeners.slice()) {
                try { listener(notification); } catch (error) { this.transport.logger?.error?.(error); }
            }
        }, this.settings.notificationTransport === undefined ? undefined : this.settings.notificationTransport === 'sse');
        await channel.start(this.apnsEnvironment);
        this.channel = channel;
        return this;
    }

    unregisterForNotifications() {
        this.channel?.stop();
        this.channel = undefined;
        return Promise.resolve(this);
    }

    addNotificationListener(listener) {
        if (typeof listener !== 'function') throw invalidArguments('addNotificationListener needs a function');
        this.listeners.push(listener);
    }

    removeNotificationListener(listener) {
        this.listeners = this.listeners.filter((each) => each !== listener);
    }

    // --- shares (docs/sharing.md) ---

    acceptShares(shortGUIDs) { return this.shares('records/accept', shortGUIDs); }

    fetchShareMetadata(shortGUIDs, options = {}) { return this.shares('records/resolve', shortGUIDs, options); }

    async shares(operation, shortGUIDs, options = {}) {
        const list = (Array.isArray(shortGUIDs) ? shortGUIDs : [shortGUIDs]).map((guid) => {
            const entry = typeof guid === 'string' ? {value: guid} : {...guid};
            if (options.shouldFetchRootRecord) entry.shouldFetchRootRecord = true;
            if (options.rootRecordDesiredKeys) entry.rootRecordDesiredKeys = options.rootRecordDesiredKeys;
            if (typeof entry.value !== 'string') throw invalidArguments('give each share as its short GUID or URL');
            return entry;
        });
        const json = await this.transport.request('public', operation, {shortGUIDs: list});
        const response = new Response(undefined);
        response.containerIdentifier = this.containerIdentifier;
        response.results = [];
        for (const item of json.results || []) {
            if (item.serverErrorCode) response.addError(item); else response.results.push(item);
        }
        return response;
    }
}
